import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chromiumAvailable, withBrowser } from '../oauth/browser.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
let production: TestServer
beforeAll(async () => {
  ;[server, production] = await Promise.all([startTestServer(), startTestServer({ production: true })])
})
afterAll(() => Promise.all([server.stop(), production.stop()]))

const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

describe('GET /graphql from a browser', () => {
  it('is GraphiQL, with a CSP naming no other host and every file from this server', async () => {
    const response = await server.fetch('/graphql', { headers: BROWSER })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = response.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("connect-src 'self';")
    expect(csp).toContain("worker-src 'self';")
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/)
    const html = await response.text()
    expect(html).toContain('GraphiQL')
    expect(html).not.toMatch(/<script>|https?:\/\//)
    for (const src of html.match(/\/graphql\/assets\/[\w.-]+/g)!) {
      const asset = await server.fetch(src)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff')
    }
    expect((await server.fetch('/graphql/assets/nothing.js')).status).toBe(404)
  })

  it('still answers GraphQL to a client that asks for JSON', async () => {
    const response = await server.fetch('/graphql?query={__typename}', {
      headers: { Accept: 'application/json' },
    })
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } })
  })

  it('with --production is the contract 406, and no GraphiQL file is served', async () => {
    const response = await production.fetch('/graphql', { headers: BROWSER })
    expect(response.status).toBe(406)
    const body = (await response.json()) as { error: { code: string } }
    expect(body.error.code).toBe('NOT_ACCEPTABLE')
    expect((await production.fetch('/graphql/assets/graphiql.js')).status).toBe(404)
  })

  it.skipIf(!chromiumAvailable())(
    'loads in a browser from this server alone, with no CSP violation, and runs { __typename }',
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
          const url = request.url()
          if (!url.startsWith(`${server.url}/`) && !/^(data|blob):/.test(url)) outside.push(url)
        })
        await page.goto(`${server.url}/graphql`)
        // The default query is `{ __typename }`, under comments on how to add a token.
        await page.locator('.graphiql-execute-button').click({ timeout: 20_000 })
        const result = page.locator('.graphiql-response')
        await result.getByText('"Query"').waitFor({ timeout: 20_000 })
        // The editor indents with no-break spaces.
        const text = (await result.textContent())!.replaceAll('\u00a0', ' ')
        expect(JSON.parse(text)).toEqual({ data: { __typename: 'Query' } })
        expect(outside).toEqual([])
        expect(problems).toEqual([])
      })
    },
    60_000,
  )
})
