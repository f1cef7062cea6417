/**
 * The console follows the schema in force: on the library schema (test/support/library.ts) its
 * navigation lists the library's collections and none of the example's, and an admin creates an
 * author and a book on the generated forms (choosing the author by name), edits the book, lends it (its action), and finds the
 * event on the Event log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import shop from '../../shared/example/shop.schema.json' with { type: 'json' }
import { librarySchema } from '../support/library.ts'
import type { TestServer } from '../support/server.ts'
import { CONSOLE_WINDOW, expectAccessible, type OrgApi, orgApi, screenshot } from './checks.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
let acme: OrgApi
beforeAll(async () => {
  if (!run) return
  server = await startConsoleServer(librarySchema())
  acme = await orgApi(server, 'Acme')
})
afterAll(async () => {
  if (run) await server.stop()
})

describe.skipIf(!run)('the console over the library schema', () => {
  it('shows its collections only, and creates, edits and lends a book', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      const nav = page.getByRole('navigation', { name: 'Console' })
      const links = (await nav.getByRole('link').allTextContents()).map((text) => text.trim())
      expect(links).toEqual(expect.arrayContaining(['authors', 'books', 'users', 'webhook-endpoints']))
      // Chapters are nested under books: reached from a book, not from the navigation.
      expect(links).not.toContain('chapters')
      for (const name of Object.keys(shop.resources)) expect(links).not.toContain(name)

      // Another author, whom searching for Le Guin does not offer.
      await acme.json('/api/v2/authors', 201, {
        method: 'POST',
        json: { name: 'Octavia E. Butler', country: 'US' },
      })
      await nav.getByRole('link', { name: 'authors', exact: true }).click()
      await page.getByRole('link', { name: 'New author' }).click()
      await page.getByRole('heading', { name: 'New author' }).waitFor()
      await page.getByLabel('name', { exact: true }).fill('Ursula K. Le Guin')
      await page.getByLabel('country', { exact: true }).fill('US')
      await page.getByRole('button', { name: 'Create' }).click()
      const authorId = await page.getByRole('heading', { level: 1, name: /^aut_/ }).textContent()

      await nav.getByRole('link', { name: 'books', exact: true }).click()
      await page.getByRole('link', { name: 'New book' }).click()
      await page.getByRole('heading', { name: 'New book' }).waitFor()
      await page.getByLabel('title', { exact: true }).fill('The Dispossessed')
      await page.getByLabel('isbn', { exact: true }).fill('978-0-06-051275-0')
      // The author is chosen by name: the box offers the matching authors, and choosing fills the id.
      const author = page.getByRole('combobox', { name: 'authorId', exact: true })
      await author.pressSequentially('Le Gu')
      const offered = page.getByRole('listbox', { name: 'authors to choose from' }).getByRole('option')
      await page.waitForFunction(
        () => document.querySelectorAll('#field-authorId-options [role=option]').length === 1,
      )
      expect(await offered.textContent()).toBe(`Ursula K. Le Guin ${authorId}`)
      await author.press('ArrowDown')
      expect(await offered.getAttribute('aria-selected')).toBe('true')
      await author.press('Enter')
      expect(await author.inputValue()).toBe(authorId!)
      await page.getByLabel('pages', { exact: true }).fill('387')
      await page.getByRole('button', { name: 'Create' }).click()
      const heading = page.getByRole('heading', { level: 1, name: /^bok_/ })
      await heading.waitFor()
      const bookId = (await heading.textContent())!
      // The reference is a link to the author; the nested chapters have their section.
      await page.locator('dl.fields').getByRole('link', { name: authorId! }).waitFor()
      await page.getByRole('heading', { level: 2, name: 'chapters' }).waitFor()
      await expectAccessible(page, 'a book of the library')

      await page.getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('heading', { name: `Edit ${bookId}` }).waitFor()
      await page.getByLabel('pages', { exact: true }).fill('400')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('heading', { level: 1, name: bookId }).waitFor()
      await page.locator('dl.fields').getByText('400', { exact: true }).waitFor()

      await page.getByRole('button', { name: 'lend' }).click()
      await page.getByText('lend: done.').waitFor()
      await page.locator('dl.fields').getByText('lent', { exact: true }).waitFor()
      const book = await acme.json<{ status: string; pages: number; authorId: string }>(
        `/api/v2/books/${bookId}`,
        200,
      )
      expect(book).toMatchObject({ status: 'lent', pages: 400, authorId })

      await nav.getByRole('link', { name: 'Event log', exact: true }).click()
      await page.getByRole('heading', { name: 'Event log' }).waitFor()
      await page.getByRole('row').filter({ hasText: 'book.lent' }).filter({ hasText: bookId }).waitFor()
      // The log of a young organization: a page that fits the window, and a schema of its own.
      await screenshot(page, 'events')
    }, CONSOLE_WINDOW)
  }, 60_000)
})
