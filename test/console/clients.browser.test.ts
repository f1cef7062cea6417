/**
 * OAuth clients in the console: an admin makes a confidential client and sees its secret once,
 * which works at /oauth/token; the secret is gone from the page after leaving it; `rotate-secret`
 * shows a new one (the old one refused from then on); its scopes show one item each; `revoke` shows the client revoked and its
 * token stops working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { TestServer } from '../support/server.ts'
import { clientCredentials } from '../support/tokens.ts'
import { CONSOLE_WINDOW, orgApi, screenshot } from './checks.ts'
import { chromiumAvailable, demoUser, signInToConsole, startConsoleServer, withBrowser } from './support.ts'

const run = chromiumAvailable()
let server: TestServer
beforeAll(async () => {
  if (run) server = await startConsoleServer()
})
afterAll(async () => {
  if (run) await server.stop()
})

const apiStatus = async (token: string) => {
  const response = await server.fetch('/api/v2/products', { headers: { Authorization: `Bearer ${token}` } })
  await response.body?.cancel()
  return response.status
}

describe.skipIf(!run)('OAuth clients in the console', () => {
  it('shows the secret once, rotates it, and revokes the client', async () => {
    await withBrowser(async (context) => {
      const page = await signInToConsole(context, server, demoUser('admin'))
      const nav = page.getByRole('navigation', { name: 'Console' })
      await nav.getByRole('link', { name: 'oauth-clients', exact: true }).click()
      await page.getByRole('link', { name: 'New oauth client' }).click()
      await page.getByRole('heading', { name: 'New oauth client' }).waitFor()
      await page.getByLabel('name', { exact: true }).fill('Nightly reports')
      await page.getByRole('button', { name: 'Create' }).click()

      const revealed = page.getByRole('region', { name: 'Copy the secret now' })
      await revealed.waitFor()
      const id = (await page.getByRole('heading', { level: 1 }).textContent())!
      expect(id).toMatch(/^clt_/)
      const secret = await revealed.getByLabel('secret').inputValue()
      expect(secret).toMatch(/^cs_/)
      await revealed.getByRole('button', { name: 'Copy' }).waitFor()
      await screenshot(page, 'client-secret')

      const first = await clientCredentials(server.url, { id, secret: secret })
      expect(first.status).toBe(200)
      expect(await apiStatus(first.token!)).toBe(200)

      // Away and back: the secret is nowhere on the page.
      await nav.getByRole('link', { name: 'Overview', exact: true }).click()
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      await page.goBack()
      await page.getByRole('heading', { level: 1, name: id }).waitFor()
      await page.locator('dl.fields').getByText('Nightly reports').waitFor()
      expect(await revealed.count()).toBe(0)
      // List fields: each item its own list item, an empty list `none`, never JSON.
      const client = await (await orgApi(server, 'Acme')).json<{ scopes: string[]; redirectUris: string[] }>(
        `/api/v2/oauth-clients/${id}`,
        200,
      )
      const shown = (name: string) =>
        page
          .locator('dl.fields dt', { hasText: new RegExp(`^${name}$`) })
          .locator('xpath=following-sibling::dd')
      expect(client.scopes.length).toBeGreaterThan(1)
      expect(await shown('scopes').getByRole('listitem').allTextContents()).toEqual(client.scopes)
      expect(client.redirectUris).toEqual([])
      expect(await shown('redirectUris').textContent()).toBe('none')
      expect(await page.locator('dl.fields').textContent()).not.toContain('[')
      expect(await page.content()).not.toContain(secret)

      await page.getByRole('button', { name: 'rotate-secret' }).click()
      await page.getByText('rotate-secret: done.').waitFor()
      const rotated = await revealed.getByLabel('secret').inputValue()
      expect(rotated).toMatch(/^cs_/)
      expect(rotated).not.toBe(secret)
      expect((await clientCredentials(server.url, { id, secret: secret })).status).toBe(401)
      const second = await clientCredentials(server.url, { id, secret: rotated })
      expect(second.status).toBe(200)
      expect(await apiStatus(second.token!)).toBe(200)

      await page.getByRole('button', { name: 'revoke' }).click()
      await page.getByText('revoke: done.').waitFor()
      // revokedAt is shown with the time it was revoked.
      const revokedAt = page
        .locator('dl.fields dt', { hasText: 'revokedAt' })
        .locator('xpath=following-sibling::dd')
      expect(await revokedAt.textContent()).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(await apiStatus(second.token!)).toBe(401)
      expect((await clientCredentials(server.url, { id, secret: rotated })).status).toBe(401)
    }, CONSOLE_WINDOW)
  }, 60_000)
})
