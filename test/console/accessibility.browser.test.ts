/**
 * axe-core finds no serious or critical violation on any page of the console, as the demo admin
 * sees it: the sign-in start, the overview, each kind of list, a record with children and actions,
 * the forms (with a 422's field errors, a reference's records offered, and a 412), the delete dialog, the Event log, the schema,
 * and a revealed secret. The same walk takes most of the screenshots docs/console.md shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { CONSOLE_WINDOW, expectAccessible, type OrgApi, orgApi, screenshot } from './checks.ts'
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

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click()

describe.skipIf(!run)('every page of the console passes axe', () => {
  it('from the sign-in to a revealed secret', async () => {
    // A paid order: it has line items (every demo order has) and actions.
    const orders = await acme.json<{ data: { id: string }[] }>('/api/v2/orders?status=paid&limit=1', 200)
    const orderId = orders.data[0]!.id
    await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(`${server.url}/console/`)
      await page.getByLabel('Email').waitFor()
      await expectAccessible(page, 'the sign-in page')
      const user = demoUser('admin')
      await page.getByLabel('Email').fill(user.email)
      await page.getByLabel('Password').fill(user.password)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      await page.getByText(user.email).waitFor()
      await expectAccessible(page, 'Overview')
      await screenshot(page, 'overview')

      // Each kind of list: search and filters, the service's own collections, the events.
      for (const name of ['products', 'users', 'webhook-endpoints', 'oauth-clients', 'events']) {
        await nav(page, name)
        await page.getByRole('heading', { name, exact: true }).waitFor()
        await page.locator('table, .empty').first().waitFor()
        await expectAccessible(page, `the list of ${name}`)
        if (name === 'products') {
          await page.getByLabel('Search').fill('pro')
          await page.getByLabel('Search').press('Enter')
          await page.waitForURL(/q=pro/)
          await page.getByLabel('active', { exact: true }).selectOption('true')
          await page.waitForURL(/active=true/)
          await page.locator('table, .empty').first().waitFor()
          await expectAccessible(page, 'a searched and filtered list')
          await screenshot(page, 'list')
        }
      }

      // A record with nested children and actions.
      await page.goto(`${server.url}/console/c/orders/${orderId}`)
      await page.getByRole('heading', { name: 'line-items' }).waitFor()
      await page.getByRole('table', { name: `line-items of ${orderId}` }).waitFor()
      await page.getByRole('button', { name: 'cancel' }).waitFor()
      await expectAccessible(page, 'an order with its line items and actions')
      await screenshot(page, 'record')

      await page.getByRole('button', { name: 'Delete' }).click()
      await page.getByRole('dialog').waitFor()
      await expectAccessible(page, 'the delete dialog')
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
      await page.getByRole('dialog').waitFor({ state: 'hidden' })

      // The edit form, then a 412 on Save.
      await page.getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('heading', { name: `Edit ${orderId}` }).waitFor()
      await expectAccessible(page, 'the edit form')
      await page.getByLabel('amount', { exact: true }).fill('5100')
      await acme.json(`/api/v2/orders/${orderId}`, 200, {
        method: 'PATCH',
        json: { amount: { value: 777, currency: 'EUR' } },
      })
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('alert').getByText('Someone changed this record').waitFor()
      await expectAccessible(page, 'the edit form after a 412')
      await screenshot(page, 'edit-412')

      // The new form, then a 422 naming the fields.
      await page.goto(`${server.url}/console/c/orders/new`)
      await page.getByRole('heading', { name: 'New order' }).waitFor()
      await expectAccessible(page, 'the new form')
      await page.getByRole('button', { name: 'Create' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('VALIDATION_ERROR').waitFor()
      expect(await alert.getByText('userId', { exact: true }).count()).toBe(1)
      await expectAccessible(page, 'the new form after a 422')
      // A reference's combobox with its records offered and one of them highlighted.
      const userId = page.getByRole('combobox', { name: 'userId', exact: true })
      await userId.press('ArrowDown')
      await page.getByRole('listbox', { name: 'users to choose from' }).getByRole('option').first().waitFor()
      expect(await userId.getAttribute('aria-expanded')).toBe('true')
      await expectAccessible(page, "the new form with a reference's records offered")

      await nav(page, 'Event log')
      await page.getByRole('heading', { name: 'Event log' }).waitFor()
      await page.getByRole('row').filter({ hasText: 'order.updated' }).first().waitFor()
      await expectAccessible(page, 'the Event log')

      await nav(page, 'Schema')
      await page.getByRole('heading', { name: 'Schema' }).waitFor()
      await page.getByRole('heading', { name: 'orders' }).waitFor()
      await expectAccessible(page, 'the Schema page')
      await screenshot(page, 'schema')

      // A revealed secret: a confidential OAuth client made on its form.
      await page.goto(`${server.url}/console/c/oauth-clients/new`)
      await page.getByLabel('name', { exact: true }).fill('Reporting')
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('region', { name: 'Copy the secret now' }).waitFor()
      await expectAccessible(page, 'a revealed secret')
    }, CONSOLE_WINDOW)
  }, 90_000)
})
