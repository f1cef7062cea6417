/**
 * The console's pages in Chromium: the schema, a record with its nested collection, the create
 * form's inline errors, a secret shown once, the delete dialog by keyboard, the navigation moving
 * focus to the heading, and signing out (the token is revoked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
beforeAll(async () => {
  if (run) server = await startConsoleServer()
})
afterAll(async () => {
  if (run) await server.stop()
})

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '')

describe.skipIf(!run)('the console pages in Chromium', () => {
  it('lists every collection on the Schema page, the service own too', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'), '/console/schema')
      await page.getByRole('heading', { name: 'Schema', level: 1 }).waitFor()
      for (const name of ['orders', 'line-items', 'users', 'events', 'webhook-endpoints', 'deliveries'])
        await page.getByRole('heading', { name, level: 2 }).waitFor()
    })
  }, 60_000)

  it('loads its pages with no request answered >= 400 and no error in the browser console', async () => {
    // Chromium asks an origin for /favicon.ico once and remembers a 404, so the console's pages must
    // be the first this profile loads from the server: the session is made in one profile (through
    // the login page) and handed to a fresh one, whose first page is the console's own.
    const session = await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      return page.evaluate(() => sessionStorage.getItem('api-console:session')!)
    })
    await withBrowser(async (context) => {
      await context.addInitScript((kept) => sessionStorage.setItem('api-console:session', kept), session)
      const page = await context.newPage()
      const failed: string[] = []
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`)
      })
      page.on('console', (message) => {
        if (message.type() === 'error') failed.push(`console: ${message.text()}`)
      })
      await page.goto(`${server.url}/console/schema`)
      await page.getByRole('heading', { name: 'orders', level: 2 }).waitFor()
      await page.goto(`${server.url}/console/c/orders`)
      await page.getByRole('table').getByRole('link').first().click()
      await page.getByRole('heading', { name: 'line-items', level: 2 }).waitFor()
      await page.goto(`${server.url}/console/`)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await page.waitForLoadState('networkidle')
      expect(failed).toEqual([])
    })
  }, 60_000)

  it('moves focus to the heading of the page a navigation link opens, by keyboard alone', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'products' })
      await link.focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'products', level: 1 }).waitFor()
      expect(await focusedText(page)).toBe('products')
      expect(new URL(page.url()).pathname).toBe('/console/c/products')
    })
  }, 60_000)

  it('finds records by full-text search, and keeps the search in the URL', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('member'), '/console/c/products')
      await page.getByRole('table').waitFor()
      await page.getByLabel('Search').fill('Gadget')
      await page.getByLabel('Search').press('Enter')
      await page.waitForURL(/q=Gadget/)
      await page.getByRole('table').getByText('Gadget').first().waitFor()
      const names = await page.getByRole('table').locator('tbody tr').allTextContents()
      expect(names.length).toBeGreaterThan(0)
      for (const row of names) expect(row).toContain('Gadget')
      await page.reload()
      expect(await page.getByLabel('Search').inputValue()).toBe('Gadget')
    })
  }, 60_000)

  it("shows a record's nested collection, and the create form's refusals beside each field", async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'), '/console/c/orders')
      await page.getByRole('table').getByRole('link').first().click()
      await page.getByRole('heading', { name: 'line-items', level: 2 }).waitFor()
      await page.getByRole('link', { name: 'New line item' }).waitFor()

      await page.goto(`${server.url}/console/c/products/new`)
      await page.getByRole('heading', { name: 'New product' }).waitFor()
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('alert').waitFor()
      expect(await page.getByRole('alert').textContent()).toContain('VALIDATION_ERROR')
      const name = page.getByLabel('name', { exact: true })
      expect(await name.getAttribute('aria-invalid')).toBe('true')
      await name.fill('Console widget')
      await page.getByLabel('sku', { exact: true }).fill('CW-1')
      await page.getByLabel('price', { exact: true }).fill('1250')
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('heading', { name: /^prd_/ }).waitFor()
      await page.getByText('Console widget').waitFor()
    })
  }, 60_000)

  it('shows a webhook endpoint secret once, and asks before deleting (Escape cancels)', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(
        context,
        server,
        demoUser('admin'),
        '/console/c/webhook-endpoints/new',
      )
      await page.getByLabel('url', { exact: true }).fill('http://127.0.0.1:9/hook')
      await page.getByRole('button', { name: 'Create' }).click()
      const region = page.getByRole('region', { name: 'Copy the secret now' })
      await region.waitFor()
      const first = await region.getByRole('textbox').inputValue()
      expect(first).toMatch(/^whsec_/)
      await region.getByRole('button', { name: 'Copy' }).waitFor()
      await page.reload()
      await page.getByRole('button', { name: 'rotate-secret' }).waitFor()
      expect(await page.getByRole('region', { name: 'Copy the secret now' }).count()).toBe(0)
      expect(await page.getByText('whsec_').count()).toBe(0)
      // rotate-secret reveals the new one, once again.
      await page.getByRole('button', { name: 'rotate-secret' }).click()
      await region.waitFor()
      const rotated = await region.getByRole('textbox').inputValue()
      expect(rotated).toMatch(/^whsec_/)
      expect(rotated).not.toBe(first)
      await page.getByRole('heading', { name: 'deliveries', level: 2 }).waitFor()

      await page.getByRole('button', { name: 'Delete' }).click()
      const dialog = page.getByRole('dialog', { name: /^Delete whe_/ })
      await dialog.waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('button', { name: 'Delete' }).click()
      await dialog.getByRole('button', { name: 'Delete' }).click()
      await page.getByRole('heading', { name: 'webhook-endpoints', level: 1 }).waitFor()
    })
  }, 60_000)

  it('renews the access token a minute before it expires, and after a 401', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      const stored = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('api-console:session')!))
      const first = await stored()
      // As if it expired in 61 s: the reloaded page renews it about a second later.
      await page.evaluate(() => {
        const session = JSON.parse(sessionStorage.getItem('api-console:session')!)
        sessionStorage.setItem(
          'api-console:session',
          JSON.stringify({ ...session, expiresAt: Date.now() + 61_000 }),
        )
      })
      await page.reload()
      await page.waitForFunction(
        (old) => JSON.parse(sessionStorage.getItem('api-console:session')!).accessToken !== old,
        first.accessToken,
      )
      const renewed = await stored()
      expect(renewed.refreshToken).not.toBe(first.refreshToken)
      // A token the API refuses (401) is renewed and the request sent again.
      await page.evaluate(() => {
        const session = JSON.parse(sessionStorage.getItem('api-console:session')!)
        sessionStorage.setItem(
          'api-console:session',
          JSON.stringify({ ...session, accessToken: 'not-a-token' }),
        )
      })
      await page.goto(`${server.url}/console/c/orders`)
      await page.getByRole('table').waitFor()
      expect(await page.getByRole('alert').count()).toBe(0)
      expect((await stored()).accessToken).not.toBe('not-a-token')
    })
  }, 60_000)

  it('signs out: the token is revoked and the page says so', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('member'))
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      const session = await page.evaluate(() => JSON.parse(sessionStorage.getItem('api-console:session')!))
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { name: 'Signed out' }).waitFor()
      expect(await page.evaluate(() => sessionStorage.getItem('api-console:session'))).toBeNull()
      const refused = await server.fetch('/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: session.refreshToken,
          client_id: 'api-console',
        }),
      })
      expect(refused.status).toBe(400)
      const use = await server.fetch('/api/v2/orders', {
        headers: { Authorization: `Bearer ${session.accessToken}` },
      })
      expect(use.status).toBe(401)
    })
  }, 60_000)
})
