import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chromiumAvailable, scrollUntilShown, withBrowser } from '../oauth/browser.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe('GET /docs', () => {
  it('is a page with a strict CSP whose assets all come from this server', async () => {
    const response = await server.fetch('/docs')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/html')
    const csp = response.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-eval')
    const html = await response.text()
    expect(html).not.toMatch(/<script>|https?:\/\//)
    for (const src of html.match(/\/docs\/assets\/[\w.-]+/g)!) {
      const asset = await server.fetch(src)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff')
    }
    expect((await server.fetch('/docs/assets/nothing.js')).status).toBe(404)
  })

  it.skipIf(!chromiumAvailable())(
    'renders the operations of v2 in a browser, with no CSP violation, and switches to v1',
    async () => {
      await withBrowser(async (context) => {
        const page = await context.newPage()
        const problems: string[] = []
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text())
        })
        page.on('pageerror', (error) => problems.push(error.message))
        const outside: string[] = []
        page.on('request', (request) => {
          if (!request.url().startsWith(server.url) && !request.url().startsWith('data:'))
            outside.push(request.url())
        })
        await page.goto(`${server.url}/docs`)
        await page.locator('[data-path="/api/v2/users"]').first().waitFor({ timeout: 20_000 })
        // Past 150 operations the reference renders those near the viewport: a reader scrolls to them.
        await scrollUntilShown(page, '[data-path="/api/v2/orders/aggregates"]')
        await scrollUntilShown(page, '[data-path="/api/v2/batch"]')
        await page.mouse.wheel(0, -1_000_000)
        await page.locator('select#select').selectOption({ label: 'v1 (deprecated)' })
        await page.locator('[data-path="/api/v1/users"]').first().waitFor({ timeout: 20_000 })
        await scrollUntilShown(page, '[data-path="/api/v1/orders"]')
        expect(await page.locator('[data-path="/api/v1/orders/aggregates"]').count()).toBe(0)
        expect(outside).toEqual([])
        expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([])
      })
    },
    60_000,
  )
})
