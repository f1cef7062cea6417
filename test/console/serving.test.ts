/**
 * /console over HTTP: the same page at every path under it, its files, the strict headers on every
 * answer, --no-console, and the console's own OAuth client (registered with the base URL's
 * callback; the only client that skips the consent page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CONSOLE_CLIENT_ID } from '../../server/store/types.ts'
import { authorizeByHttp, orgWithUsers, PageAgent, pkce, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

let server: TestServer
let off: TestServer
beforeAll(async () => {
  ;[server, off] = await Promise.all([startTestServer(), startTestServer({ console: false })])
})
afterAll(async () => {
  await Promise.all([server.stop(), off.stop()])
})

const strict = (response: Response) => {
  expect(response.headers.get('content-security-policy')).toBe(CSP)
  expect(response.headers.get('x-frame-options')).toBe('DENY')
  expect(response.headers.get('referrer-policy')).toBe('no-referrer')
}

describe('GET /console', () => {
  it.each([
    '/console',
    '/console/',
    '/console/c/anything',
    '/console/c/anything/some-id/edit',
    '/console/events',
  ])('%s answers the page, which loads one script and one stylesheet of its own', async (path) => {
    const response = await server.fetch(path)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    strict(response)
    const html = await response.text()
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('style=')
    expect(html.match(/src="[^"]*"/g)).toEqual([
      expect.stringMatching(/^src="\/console\/assets\/main-\w+\.js"$/),
    ])
  })

  it('serves the script and stylesheet the page names, with the same headers, for a year (their names carry a hash)', async () => {
    const html = await (await server.fetch('/console/')).text()
    const files = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!)
    expect(files).toHaveLength(2)
    for (const file of files) {
      const response = await server.fetch(file)
      expect(response.status).toBe(200)
      strict(response)
      expect(response.headers.get('cache-control')).toContain('immutable')
      expect(response.headers.get('content-type')).toMatch(
        file.endsWith('.js') ? /^text\/javascript/ : /^text\/css/,
      )
      expect((await response.text()).length).toBeGreaterThan(1000)
    }
  })

  it('answers 404 for a file it does not have, with the same headers', async () => {
    const response = await server.fetch('/console/assets/nothing.js')
    expect(response.status).toBe(404)
    strict(response)
    expect((await response.json()).error.code).toBe('NOT_FOUND')
  })

  it.each(['/console', '/console/', '/console/c/anything', '/console/assets/main.js'])(
    'with --no-console, %s is 404',
    async (path) => {
      const response = await off.fetch(path)
      expect(response.status).toBe(404)
      expect((await response.json()).error.code).toBe('NOT_FOUND')
    },
  )
})

describe('the console OAuth client', () => {
  it("is public, with the base URL's /console/callback as its only redirect URI", async () => {
    const client = await server.store.clients.find(CONSOLE_CLIENT_ID)
    expect(client).toMatchObject({
      public: true,
      orgId: null,
      redirectUris: [`${server.url}/console/callback`],
      grantTypes: ['authorization_code', 'refresh_token'],
    })
  })

  it('is not registered with --no-console', async () => {
    expect(await off.store.clients.find(CONSOLE_CLIENT_ID)).toBeNull()
  })

  it('skips the consent page for the console, and only for it', async () => {
    const acme = await orgWithUsers(server, 'Consent')
    const other = await registerClient(server, {
      name: 'another public client',
      orgId: null,
      public: true,
      redirectUris: ['http://127.0.0.1/elsewhere'],
    })
    const start = async (clientId: string, redirectUri: string) => {
      const { challenge, state } = await pkce()
      const url = new URL('/oauth/authorize', server.url)
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'read:events',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString()
      return url
    }
    const agent = new PageAgent(server.url)
    // Signed in through the console: straight back to it with a code, no consent asked.
    const back = await authorizeByHttp(
      agent,
      await start(CONSOLE_CLIENT_ID, `${server.url}/console/callback`),
      acme.member,
    )
    expect(new URL(back).pathname).toBe('/console/callback')
    expect(new URL(back).searchParams.get('code')).toBeTruthy()
    // The same signed-in browser, another public client: the consent page.
    const page = await (await agent.get(String(await start(other.id, 'http://127.0.0.1/elsewhere')))).text()
    expect(page).toContain('Allow access?')
    expect(page).toContain('another public client')
  })
})
