/**
 * The console by keyboard alone (Tab, Shift+Tab, Enter, Space, Escape and typing): sign in, open
 * a collection, search it, open a record, open and cancel the delete dialog, edit the record and
 * save it. Every element Tab lands on shows that it has the focus, and after each navigation the
 * focus is on the new page's `h1`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Locator, Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { CONSOLE_WINDOW, focusShown, type OrgApi, orgApi } from './checks.ts'
import { chromiumAvailable, demoUser, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
let acme: OrgApi
beforeAll(async () => {
  if (!run) return
  server = await startConsoleServer()
  acme = await orgApi(server, 'Acme')
})
afterAll(async () => {
  if (run) await server.stop()
})

const isFocused = (target: Locator) => target.evaluate((element) => element === document.activeElement)

/** Presses `key` (Tab or Shift+Tab) until `target` has the focus; each stop on the page must show its focus. */
async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<void> {
  await target.waitFor()
  for (let presses = 0; presses < 60; presses++) {
    await page.keyboard.press(key)
    const focus = await focusShown(page)
    // Past the last element the focus leaves the page for the browser's own controls.
    if (focus.element !== 'body')
      expect({ focus: focus.element, shown: focus.shown }).toEqual({ focus: focus.element, shown: true })
    if (await isFocused(target)) return
  }
  throw new Error(`${key} never reached ${target}`)
}

/** Waits until the focus is on the page's `h1` reading `heading`. */
async function focusOnHeading(page: Page, heading: string): Promise<void> {
  const h1 = page.getByRole('heading', { level: 1, name: heading, exact: true })
  await h1.waitFor()
  await page.waitForFunction((text) => {
    const focused = document.activeElement
    return focused?.tagName === 'H1' && focused.textContent?.trim() === text
  }, heading)
}

describe.skipIf(!run)('the console by keyboard alone', () => {
  it('signs in, searches, opens a record, cancels a delete, edits and saves', async () => {
    const found = await acme.json<{ data: { id: string; name: string }[] }>('/api/v2/products?q=gadget', 200)
    const product = found.data[0]!
    await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(`${server.url}/console/`)
      const user = demoUser('member')
      await tabTo(page, page.getByLabel('Email'))
      await page.keyboard.type(user.email)
      await tabTo(page, page.getByLabel('Password'))
      await page.keyboard.type(user.password)
      await tabTo(page, page.getByRole('button', { name: 'Sign in', exact: true }))
      await page.keyboard.press('Enter')
      await focusOnHeading(page, 'Overview')

      const nav = page.getByRole('navigation', { name: 'Console' })
      await tabTo(page, nav.getByRole('link', { name: 'products', exact: true }))
      await page.keyboard.press('Enter')
      await focusOnHeading(page, 'products')

      await tabTo(page, page.getByLabel('Search'))
      await page.keyboard.type('gadget')
      await page.keyboard.press('Enter')
      await page.waitForURL(/q=gadget/)
      // The URL changes first; the table follows once the search's answer is in.
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1)
      const link = page.getByRole('table').getByRole('link', { name: product.id })
      await tabTo(page, link)
      await page.keyboard.press('Enter')
      await focusOnHeading(page, product.id)

      // The delete dialog opens on Space, takes the focus, and Escape closes it with nothing deleted.
      const remove = page.getByRole('button', { name: 'Delete' })
      await tabTo(page, remove)
      await page.keyboard.press('Space')
      const dialog = page.getByRole('dialog', { name: `Delete ${product.id}?` })
      await dialog.waitFor()
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
      expect((await focusShown(page)).shown).toBe(true)
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })
      expect(await isFocused(remove)).toBe(true)
      await acme.json(`/api/v2/products/${product.id}`, 200)

      await tabTo(page, page.getByRole('link', { name: 'Edit' }), 'Shift+Tab')
      await page.keyboard.press('Enter')
      await focusOnHeading(page, `Edit ${product.id}`)
      // Tab selects a box's text, so typing replaces it.
      await tabTo(page, page.getByLabel('name', { exact: true }))
      await page.keyboard.type('Gadget Max')
      await tabTo(page, page.getByRole('button', { name: 'Save' }))
      await page.keyboard.press('Enter')
      await focusOnHeading(page, product.id)
      await page.locator('dl.fields').getByText('Gadget Max', { exact: true }).waitFor()
      const saved = await acme.json<{ name: string }>(`/api/v2/products/${product.id}`, 200)
      expect(saved.name).toBe('Gadget Max')
    }, CONSOLE_WINDOW)
  }, 60_000)
})
