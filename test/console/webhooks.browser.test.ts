/**
 * Webhook endpoints in the console: `test` queues a delivery, which fails (nothing listens on the
 * endpoint's port, and the schedule allows one attempt); the delivery shows under its endpoint and
 * `retry` puts it back to pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { TestServer } from '../support/server.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
beforeAll(async () => {
  if (run) server = await startConsoleServer(undefined, { webhooks: { scheduleMs: [], pollMs: 50 } })
})
afterAll(async () => {
  if (run) await server.stop()
})

describe.skipIf(!run)('webhook deliveries in the console', () => {
  it('shows a failed delivery under its endpoint and retries it', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(
        context,
        server,
        demoUser('admin'),
        '/console/c/webhook-endpoints/new',
      )
      // Port 9 (discard) on loopback: nothing listens, every attempt fails at once.
      await page.getByLabel('url', { exact: true }).fill('http://127.0.0.1:9/hook')
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('button', { name: 'test' }).click()
      await page.getByText('test: done.').waitFor()
      const deliveries = page.getByRole('region', { name: 'deliveries' })
      const deadline = Date.now() + 15_000
      while ((await deliveries.getByRole('cell', { name: 'failed', exact: true }).count()) === 0) {
        expect(Date.now()).toBeLessThan(deadline)
        await Bun.sleep(200)
        await page.reload()
        await deliveries.getByRole('table').or(deliveries.getByText('None yet.')).waitFor()
      }
      await deliveries.getByRole('rowheader').getByRole('link').first().click()
      await page.getByRole('heading', { name: /^whd_/, level: 1 }).waitFor()
      await page.getByRole('button', { name: 'retry' }).click()
      await page.getByText('retry: done.').waitFor()
      expect(await page.locator('dl.fields').textContent()).toContain('pending')
    })
  }, 60_000)
})
