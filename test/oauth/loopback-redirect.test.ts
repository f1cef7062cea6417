import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from '../support/server.ts'
import { codeFlow, discover, orgWithUsers, pkce, registerClient } from './support.ts'

/** RFC 8252 §7.3: a native app's loopback redirect URI matches whatever port the app listens on. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let native: { id: string }
let web: { id: string }

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  native = await registerClient(server, {
    orgId: null,
    public: true,
    redirectUris: ['http://127.0.0.1:4000/cb', 'http://[::1]:4000/cb'],
    grantTypes: ['authorization_code'],
  })
  web = await registerClient(server, {
    orgId: acme.orgId,
    redirectUris: ['http://app.example:4000/cb'],
    grantTypes: ['authorization_code'],
  })
})
afterAll(() => server.stop())

async function authorize(clientId: string, redirectUri: string): Promise<Response> {
  const { challenge, state } = await pkce()
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  })
  return server.fetch(`/oauth/authorize?${params}`, { redirect: 'manual' })
}

describe('a loopback redirect URI registered with a port (RFC 8252 §7.3)', () => {
  it.each([
    'http://127.0.0.1:4000/cb',
    'http://127.0.0.1:53123/cb',
    'http://127.0.0.1:65535/cb',
    'http://127.0.0.1/cb',
    'http://[::1]:53123/cb',
  ])('accepts %s', async (redirect) => {
    const response = await authorize(native.id, redirect)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/html')
  })

  it.each([
    ['another path', 'http://127.0.0.1:53123/other'],
    ['a longer path', 'http://127.0.0.1:53123/cb/'],
    ['another case', 'http://127.0.0.1:53123/CB'],
    ['a query', 'http://127.0.0.1:53123/cb?x=1'],
    ['another loopback address', 'http://127.0.0.2:53123/cb'],
    ['the other address family with another path', 'http://[::1]:53123/other'],
    ['localhost (RFC 8252 §8.3)', 'http://localhost:53123/cb'],
    ['https', 'https://127.0.0.1:53123/cb'],
    ['user information', 'http://me@127.0.0.1:53123/cb'],
  ])('refuses %s (%s) with an error page and no redirect', async (_, redirect) => {
    const response = await authorize(native.id, redirect)
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
  })

  it('keeps ports exact for any other host', async () => {
    expect((await authorize(web.id, 'http://app.example:4000/cb')).status).toBe(200)
    const other = await authorize(web.id, 'http://app.example:5000/cb')
    expect(other.status).toBe(400)
    expect(other.headers.get('location')).toBeNull()
  })

  it('completes the flow on the port the app listens on, and issues tokens', async () => {
    const config = await discover(server, native.id)
    const tokens = await codeFlow(server, config, 'http://127.0.0.1:53123/cb', acme.member.email)
    expect(tokens.access_token).toBeString()
  })
})
