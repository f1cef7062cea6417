/**
 * The console knows no collection of its own: over the library schema (test/schema/files/) it
 * offers that schema's collections, forms and actions, learned from the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { librarySchema } from '../support/library.ts'
import type { TestServer } from '../support/server.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
beforeAll(async () => {
  if (run) server = await startConsoleServer(librarySchema())
})
afterAll(async () => {
  if (run) await server.stop()
})

describe.skipIf(!run)('the console over a schema of its own', () => {
  it("lists the schema's collections, creates an author and a book, and lends the book", async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      const nav = page.getByRole('navigation', { name: 'Console' })
      const links = await nav.getByRole('link').allTextContents()
      expect(links).toEqual([
        'Overview',
        'users',
        'authors',
        'books',
        'events',
        'webhook-endpoints',
        'oauth-clients',
        'Event log',
        'Schema',
      ])

      await nav.getByRole('link', { name: 'authors' }).click()
      await page.getByText('No authors yet.').waitFor()
      await page.getByRole('link', { name: 'New author' }).click()
      await page.getByLabel('name', { exact: true }).fill('Ursula')
      await page.getByRole('button', { name: 'Create' }).click()
      const author = (await page.getByRole('heading', { name: /^[a-z]+_/, level: 1 }).textContent())!.trim()

      await page.goto(`${server.url}/console/c/books/new`)
      await page.getByLabel('title', { exact: true }).fill('The Dispossessed')
      await page.getByLabel('authorId', { exact: true }).fill(author)
      await page.getByLabel('isbn', { exact: true }).fill('978-0-06-051275-2')
      await page.getByLabel('pages', { exact: true }).fill('387')
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('heading', { name: 'chapters', level: 2 }).waitFor()
      await page.getByRole('link', { name: author }).waitFor()
      await page.getByRole('button', { name: 'lend' }).click()
      await page.getByText('lend: done.').waitFor()
    })
  }, 60_000)
})
