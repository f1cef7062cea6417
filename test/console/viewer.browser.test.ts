/**
 * A viewer can change nothing from the console: no `New …`, `Edit`, `Delete` or action button on
 * any collection's list or record (the service's own collections too), and a form opened by its
 * URL gets the API's 403 on `Create`, with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { CONSOLE_WINDOW, type OrgApi, orgApi } from './checks.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
let acme: OrgApi
beforeAll(async () => {
  if (!run) return
  server = await startConsoleServer()
  acme = await orgApi(server, 'Acme')
  // A record in each service collection, so that its record page is there to look at.
  await acme.json('/api/v2/webhook-endpoints', 201, {
    method: 'POST',
    json: { url: 'http://127.0.0.1:9/hook', description: 'nowhere' },
  })
  await acme.json('/api/v2/oauth-clients', 201, { method: 'POST', json: { name: 'Reporting' } })
})
afterAll(async () => {
  if (run) await server.stop()
})

/** The names of the buttons and links a viewer must not be offered on the page. */
async function writeControls(page: Page, actions: string[]): Promise<string[]> {
  const found: string[] = []
  for (const name of [/^New /, 'Edit', 'Delete', 'Create', 'Save', ...actions])
    for (const role of ['button', 'link'] as const)
      if ((await page.getByRole(role, { name, exact: typeof name === 'string' }).count()) > 0)
        found.push(`${role} ${name}`)
  return found
}

const ACTIONS = [
  'cancel',
  'ship',
  'deliver',
  'publish',
  'unpublish',
  'rotate-secret',
  'test',
  'revoke',
  'retry',
]

describe.skipIf(!run)('a viewer in the console', () => {
  it('is offered no write control on any list or record', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('viewer'))
      const nav = page.getByRole('navigation', { name: 'Console' })
      const hrefs = await nav
        .getByRole('link')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href')!).filter((h) => h.includes('/c/')))
      const names = hrefs.map((href) => href.split('/').pop()!)
      expect(names).toEqual(expect.arrayContaining(['orders', 'users', 'webhook-endpoints']))
      // A viewer may not read the organization's OAuth clients: not offered, and refused by URL.
      expect(names).not.toContain('oauth-clients')
      const seen: string[] = []
      for (const name of [...names, 'oauth-clients']) {
        if (name === 'oauth-clients') await page.goto(`${server.url}/console/c/${name}`)
        else await nav.getByRole('link', { name, exact: true }).click()
        await page.getByRole('heading', { name, exact: true }).waitFor()
        // The list, or the API's refusal.
        await page.locator('table, .empty, [role="alert"]').first().waitFor()
        if (name === 'oauth-clients')
          expect(await page.getByRole('alert').textContent()).toContain('FORBIDDEN')
        expect({ name, found: await writeControls(page, ACTIONS) }).toEqual({ name, found: [] })
        const first = page.getByRole('table').getByRole('rowheader').getByRole('link').first()
        if ((await first.count()) === 0) continue
        const id = (await first.textContent())!.trim()
        await first.click()
        await page.getByRole('heading', { name: id }).waitFor()
        await page.locator('dl.fields').waitFor()
        await page.getByText('Loading…').waitFor({ state: 'detached' })
        expect({ id, found: await writeControls(page, ACTIONS) }).toEqual({ id, found: [] })
        seen.push(name)
      }
      // Each list with records led to one: the viewer looked at the service's records too.
      expect(seen).toEqual(expect.arrayContaining(['orders', 'posts', 'users', 'webhook-endpoints']))
    }, CONSOLE_WINDOW)
  }, 90_000)

  // Each collection's form, opened by its URL: Create shows the API's refusal, nothing is written.
  const FORMS: { collection: string; heading: string; fill: Record<string, string> }[] = [
    { collection: 'products', heading: 'New product', fill: { name: 'Lamp', sku: 'LAMP-1', price: '1200' } },
    { collection: 'users', heading: 'New user', fill: { name: 'Eve', email: 'eve@acme.example' } },
    {
      collection: 'webhook-endpoints',
      heading: 'New webhook endpoint',
      fill: { url: 'http://127.0.0.1:9/x' },
    },
    { collection: 'oauth-clients', heading: 'New oauth client', fill: { name: 'Sneaky' } },
  ]
  it('gets the API 403 on the forms opened by URL, and nothing is written', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('viewer'))
      for (const { collection, heading, fill } of FORMS) {
        const before = await acme.json<{ data: unknown[] }>(`/api/v2/${collection}?limit=100`, 200)
        await page.goto(`${server.url}/console/c/${collection}/new`)
        await page.getByRole('heading', { name: heading }).waitFor()
        for (const [field, value] of Object.entries(fill))
          await page.getByLabel(field, { exact: true }).fill(value)
        await page.getByRole('button', { name: 'Create' }).click()
        const alert = page.getByRole('alert')
        await alert.waitFor()
        expect({ collection, alert: await alert.textContent() }).toEqual({
          collection,
          alert: expect.stringContaining('FORBIDDEN'),
        })
        const after = await acme.json<{ data: unknown[] }>(`/api/v2/${collection}?limit=100`, 200)
        expect({ collection, count: after.data.length }).toEqual({ collection, count: before.data.length })
        expect(page.url()).toBe(`${server.url}/console/c/${collection}/new`)
      }
    }, CONSOLE_WINDOW)
  }, 60_000)
})
