/**
 * The console in Chromium on the demo data, end to end: sign in as the demo admin through the
 * login page, find an order by its status, edit it while the API changes it meanwhile (412, then
 * Reload and Save), cancel it, and see the event arrive on the live Event log. Every request the
 * pages make goes to the server's own origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
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

describe.skipIf(!run)('the console in Chromium', () => {
  it('signs in, finds an order, edits it through a 412, cancels it and shows the event live', async () => {
    await withBrowser(async (context) => {
      const requested: string[] = []
      context.on('request', (request) => requested.push(request.url()))
      const page = await signInToConsole(context, server, demoUser('admin'))
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      await page.getByText('alice@acme.example').waitFor()

      // The event log, in a tab of its own (signed in again by the login cookie, no form).
      const log = await context.newPage()
      await log.goto(`${server.url}/console/events`)
      await log.getByRole('heading', { name: 'Event log' }).waitFor()
      await log.getByText('live').waitFor()

      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'orders', exact: true })
        .click()
      await page.getByRole('heading', { name: 'orders' }).waitFor()
      await page.getByLabel('status', { exact: true }).selectOption('pending')
      await page.waitForURL(/status=pending/)
      await page.getByRole('table').waitFor()
      const rows = page.getByRole('table').getByRole('row')
      const id = (await rows.nth(1).getByRole('rowheader').textContent())!.trim()
      expect(await page.getByRole('table').getByRole('cell', { name: 'paid', exact: true }).count()).toBe(0)
      // A reload shows the same list.
      await page.reload()
      expect(await page.getByLabel('status', { exact: true }).inputValue()).toBe('pending')

      await page.getByRole('link', { name: id }).click()
      await page.getByRole('heading', { name: id }).waitFor()
      await page.getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('heading', { name: `Edit ${id}` }).waitFor()
      await page.getByLabel('amount', { exact: true }).fill('4321')
      // Meanwhile the record changes through the API.
      const token = await page.evaluate(
        () => JSON.parse(sessionStorage.getItem('api-console:session')!).accessToken,
      )
      const changed = await server.fetch(`/api/v2/orders/${id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ amount: { value: 999, currency: 'EUR' } }),
      })
      expect(changed.status).toBe(200)
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('alert').getByText('Someone changed this record').waitFor()
      expect(await page.getByLabel('amount', { exact: true }).inputValue()).toBe('4321')
      await page.getByRole('button', { name: 'Reload' }).click()
      await page.getByRole('alert').waitFor({ state: 'detached' })
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('heading', { name: id }).waitFor()
      await page.getByText('43.21 EUR').waitFor()

      await page.getByRole('button', { name: 'cancel' }).click()
      await page.getByText('cancel: done.').waitFor()
      await log.getByRole('row').filter({ hasText: 'order.cancelled' }).filter({ hasText: id }).waitFor()

      for (const url of requested) expect(new URL(url).origin).toBe(server.url)
    })
  }, 60_000)

  it('shows a viewer no write button', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('viewer'), '/console/c/orders')
      await page.getByRole('table').waitFor()
      expect(await page.getByRole('link', { name: 'New order' }).count()).toBe(0)
      await page.getByRole('table').getByRole('link').first().click()
      await page.locator('dl.fields').waitFor()
      for (const name of ['Edit', 'Delete', 'cancel'])
        expect(await page.getByRole('button', { name }).count()).toBe(0)
      expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0)
    })
  }, 60_000)
})
