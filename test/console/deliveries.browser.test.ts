/**
 * A webhook endpoint's deliveries in the console: a receiver on loopback that answers 500 makes
 * the delivery of a change `failed` on the endpoint's page; once it answers 200, `retry` in the
 * console delivers it and the list shows it `succeeded`. The endpoint's `test` sends a
 * webhook.test event, and `rotate-secret` shows the new signing secret once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'
import { CONSOLE_WINDOW, type OrgApi, orgApi, screenshot } from './checks.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
let acme: OrgApi
let receiver: Receiver
let answer = 500
beforeAll(async () => {
  if (!run) return
  // http to loopback allowed, and two quick retries, as test/webhooks/ does.
  server = await startConsoleServer(undefined, {
    webhooks: { allowHttp: true, scheduleMs: [100, 100], pollMs: 50, attemptTimeoutMs: 1_000 },
  })
  acme = await orgApi(server, 'Acme')
  receiver = startReceiver(() => new Response(null, { status: answer }))
})
afterAll(async () => {
  if (!run) return
  receiver.stop()
  await server.stop()
})

/** Reloads the page until the deliveries' table has a row with both texts. */
async function untilRow(page: Page, texts: string[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const section = page.getByRole('region', { name: 'deliveries' })
    await section.locator('table, .empty').first().waitFor()
    let rows = section.getByRole('row')
    for (const text of texts) rows = rows.filter({ hasText: text })
    if ((await rows.count()) > 0) return
    if (Date.now() > deadline) throw new Error(`no delivery row with ${texts.join(', ')}`)
    await Bun.sleep(200)
    await page.reload()
  }
}

describe.skipIf(!run)('webhook deliveries in the console', () => {
  it('shows a failed delivery, retries it, tests and rotates the endpoint', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      await page.goto(`${server.url}/console/c/webhook-endpoints/new`)
      await page.getByLabel('url', { exact: true }).fill(receiver.url)
      await page.getByLabel('eventTypes', { exact: true }).fill('product.created\nwebhook.test')
      await page.getByRole('button', { name: 'Create' }).click()
      const revealed = page.getByRole('region', { name: 'Copy the secret now' })
      const first = await revealed.getByLabel('secret').inputValue()
      expect(first).toMatch(/^whsec_/)
      const endpointId = (await page.getByRole('heading', { level: 1 }).textContent())!

      // A change the endpoint wants: the receiver refuses it, every attempt.
      const product = await acme.json<{ id: string }>('/api/v2/products', 201, {
        method: 'POST',
        json: { name: 'Lamp', sku: 'LMP-1', price: { value: 1900, currency: 'EUR' } },
      })
      await untilRow(page, ['product.created', 'failed'])
      expect(receiver.received.length).toBe(3)
      expect(await revealed.count()).toBe(0)
      await screenshot(page, 'deliveries')

      answer = 200
      const failed = page
        .getByRole('region', { name: 'deliveries' })
        .getByRole('row')
        .filter({ hasText: 'failed' })
      const deliveryId = (await failed.getByRole('link').textContent())!.trim()
      await failed.getByRole('link').click()
      await page.getByRole('heading', { level: 1, name: deliveryId }).waitFor()
      // A delivery is read-only: its one control is retry.
      const retry = page.getByRole('button', { name: 'retry' })
      await retry.waitFor()
      expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0)
      await retry.click()
      await page.getByText('retry: done.').waitFor()
      await receiver.waitFor(4)
      expect(JSON.parse(receiver.received[3]!.body).data.id).toBe(product.id)
      await page.goto(`${server.url}/console/c/webhook-endpoints/${endpointId}`)
      await untilRow(page, [deliveryId, 'succeeded'])

      await page.getByRole('button', { name: 'test' }).click()
      await page.getByText('test: done.').waitFor()
      await receiver.waitFor(5)
      expect(JSON.parse(receiver.received[4]!.body).type).toBe('webhook.test')
      await untilRow(page, ['webhook.test', 'succeeded'])

      await page.getByRole('button', { name: 'rotate-secret' }).click()
      await page.getByText('rotate-secret: done.').waitFor()
      const rotated = await revealed.getByLabel('secret').inputValue()
      expect(rotated).toMatch(/^whsec_/)
      expect(rotated).not.toBe(first)
      await page.reload()
      await page.getByRole('heading', { level: 1, name: endpointId }).waitFor()
      await page.locator('dl.fields').waitFor()
      expect(await revealed.count()).toBe(0)
      expect(await page.content()).not.toContain(rotated)
    }, CONSOLE_WINDOW)
  }, 60_000)
})
