import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { hashToken } from '../../server/crypto/token-hash.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { expectOAuthError } from '../auth/oauth-assertions.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  authorizeByHttp,
  basicAuth,
  orgWithUsers,
  PageAgent,
  pkce,
  postForm,
  registerClient,
} from './support.ts'

/** Negative checks for the RFC 9700 rules that apply to this server, one describe per rule. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let web: { id: string; secret?: string }
const WEB = 'https://app.example/cb'

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  web = await registerClient(server, {
    orgId: acme.orgId,
    redirectUris: [WEB, 'http://app.example/plain'],
    grantTypes: ['authorization_code', 'refresh_token'],
  })
})
afterAll(() => server.stop())

const authorizeUrl = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`
const cliParams = async (redirect = 'http://127.0.0.1:7000/callback') => {
  const { challenge, state } = await pkce()
  return {
    response_type: 'code',
    client_id: CLI_CLIENT_ID,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }
}

/** An error page: 400, HTML, and no redirect anywhere (RFC 9700 §4.11: no open redirector). */
async function expectErrorPage(path: string) {
  const response = await server.fetch(path, { redirect: 'manual' })
  expect(response.status).toBe(400)
  expect(response.headers.get('location')).toBeNull()
  expect(response.headers.get('content-type')).toStartWith('text/html')
}

describe('redirect URI matching (RFC 9700 §4.1.3: exact; RFC 8252 §7.3: loopback port)', () => {
  it.each([
    `${WEB}/`,
    `${WEB}?x=1`,
    'https://app.example/cb2',
    'https://app.example/CB',
    'http://app.example/cb',
    'https://app.example:8443/cb',
    'https://evil.example/cb',
    `${WEB}#fragment`,
    'http://app.example:81/plain',
  ])('shows an error page and never redirects for %s', async (redirect) => {
    await expectErrorPage(authorizeUrl({ ...(await cliParams()), client_id: web.id, redirect_uri: redirect }))
  })

  it.each([
    'http://localhost:7000/callback',
    'https://127.0.0.1:7000/callback',
    'http://127.0.0.1:7000/other',
    'http://127.0.0.2:7000/callback',
    'http://127.0.0.1:7000/callback?x=1',
    'http://user@127.0.0.1:7000/callback',
  ])('allows any loopback port, and nothing else, for the CLI: refuses %s', async (redirect) => {
    await expectErrorPage(authorizeUrl(await cliParams(redirect)))
  })

  it.each([
    'http://127.0.0.1:7000/callback',
    'http://127.0.0.1:65535/callback',
    'http://[::1]:7000/callback',
  ])('accepts %s for the CLI', async (redirect) => {
    const response = await server.fetch(authorizeUrl(await cliParams(redirect)), { redirect: 'manual' })
    expect(response.status).toBe(200)
  })

  it.each([
    ['an unknown client', { client_id: 'clt_nope', redirect_uri: WEB }],
    ['no client', { redirect_uri: WEB }],
    ['no redirect_uri', { client_id: 'CLIENT' }],
    ['two redirect_uris', 'TWO'],
  ])('shows an error page for %s', async (_, extra) => {
    const params = new URLSearchParams({ response_type: 'code', state: 's' })
    if (extra === 'TWO') {
      params.set('client_id', web.id)
      params.append('redirect_uri', WEB)
      params.append('redirect_uri', 'https://evil.example/cb')
    } else for (const [k, v] of Object.entries(extra)) params.set(k, v === 'CLIENT' ? web.id : v)
    await expectErrorPage(`/oauth/authorize?${params}`)
  })
})

describe('errors after the redirect URI is verified go back to the client with state and iss (RFC 9207)', () => {
  const cases: [string, Record<string, string | null>, string][] = [
    [
      'response_type=token (no implicit grant, RFC 9700 §2.1.2)',
      { response_type: 'token' },
      'unsupported_response_type',
    ],
    ['no response_type', { response_type: null }, 'invalid_request'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a challenge without a method (plain by default)', { code_challenge_method: null }, 'invalid_request'],
    [
      'a public client without PKCE',
      { code_challenge: null, code_challenge_method: null },
      'invalid_request',
    ],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['an unknown scope', { scope: 'read:orders read:secrets' }, 'invalid_scope'],
    ['a request object', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'invalid_request'],
    ['response_mode=fragment', { response_mode: 'fragment' }, 'invalid_request'],
  ]
  it.each(cases)('%s', async (_, change, error) => {
    const params: Record<string, string> = await cliParams()
    for (const [k, v] of Object.entries(change)) {
      if (v === null) delete params[k]
      else params[k] = v
    }
    const response = await server.fetch(authorizeUrl(params), { redirect: 'manual' })
    expect(response.status).toBe(303)
    const location = new URL(response.headers.get('location')!)
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:7000/callback')
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      error,
      state: params.state,
      iss: server.url,
    })
  })

  it('refuses a repeated parameter with invalid_request', async () => {
    const params = new URLSearchParams(await cliParams())
    params.append('scope', 'read:orders')
    params.append('scope', 'read:users')
    const response = await server.fetch(`/oauth/authorize?${params}`, { redirect: 'manual' })
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_request')
  })

  it('refuses a client not registered for the code grant with unauthorized_client', async () => {
    const cc = await registerClient(server, {
      orgId: acme.orgId,
      redirectUris: [WEB],
      grantTypes: ['client_credentials'],
    })
    const response = await server.fetch(
      authorizeUrl({ response_type: 'code', client_id: cc.id, redirect_uri: WEB }),
      {
        redirect: 'manual',
      },
    )
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('unauthorized_client')
  })

  it('returns state and iss with the code', async () => {
    const params = await cliParams()
    const callback = new URL(
      await authorizeByHttp(new PageAgent(server.url), authorizeUrl(params), acme.member),
    )
    expect(callback.searchParams.get('code')).toStartWith('ac_')
    expect(callback.searchParams.get('state')).toBe(params.state)
    expect(callback.searchParams.get('iss')).toBe(server.url)
  })
})

describe('the code at the token endpoint (RFC 9700 §2.1.1, RFC 7636)', () => {
  /** A code for `client`, with or without PKCE. */
  async function code(options: { client?: string; redirect?: string; challenge?: string } = {}) {
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: options.client ?? CLI_CLIENT_ID,
      redirect_uri: options.redirect ?? 'http://127.0.0.1:7100/callback',
    }
    if (options.challenge)
      Object.assign(params, { code_challenge: options.challenge, code_challenge_method: 'S256' })
    const callback = await authorizeByHttp(new PageAgent(server.url), authorizeUrl(params), acme.member)
    return new URL(callback).searchParams.get('code')!
  }
  const redeem = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(server, '/oauth/token', { grant_type: 'authorization_code', ...form }, headers)
  const webAuth = () => ({ Authorization: basicAuth(web.id, web.secret!) })

  it('refuses a code_verifier for a code issued without a challenge (PKCE downgrade)', async () => {
    const c = await code({ client: web.id, redirect: WEB })
    const response = await redeem({ code: c, redirect_uri: WEB, code_verifier: 'a'.repeat(43) }, webAuth())
    await expectOAuthError(response, 400, 'invalid_grant')
  })

  it('lets a confidential client without PKCE redeem its code (PKCE is required of public clients)', async () => {
    const c = await code({ client: web.id, redirect: WEB })
    expect((await redeem({ code: c, redirect_uri: WEB }, webAuth())).status).toBe(200)
  })

  it('needs the verifier that matches the challenge, and any verifier at all', async () => {
    const { verifier, challenge } = await pkce()
    const c = await code({ challenge })
    const base = { code: c, redirect_uri: 'http://127.0.0.1:7100/callback', client_id: CLI_CLIENT_ID }
    await expectOAuthError(await redeem(base), 400, 'invalid_grant')
    await expectOAuthError(
      await redeem({ ...base, code_verifier: `${verifier.slice(1)}x` }),
      400,
      'invalid_grant',
    )
    await expectOAuthError(await redeem({ ...base, code_verifier: 'short' }), 400, 'invalid_grant')
    expect((await redeem({ ...base, code_verifier: verifier })).status).toBe(200)
  })

  it('binds the code to its redirect URI, port included, and to its client', async () => {
    const { verifier, challenge } = await pkce()
    const c = await code({ challenge })
    const base = { code: c, code_verifier: verifier, client_id: CLI_CLIENT_ID }
    await expectOAuthError(
      await redeem({ ...base, redirect_uri: 'http://127.0.0.1:7101/callback' }),
      400,
      'invalid_grant',
    )
    const { client_id: _, ...withoutClient } = base
    await expectOAuthError(
      await redeem({ ...withoutClient, redirect_uri: 'http://127.0.0.1:7100/callback' }, webAuth()),
      400,
      'invalid_grant',
    )
    const other = await registerClient(server, {
      orgId: null,
      public: true,
      redirectUris: ['http://127.0.0.1/callback'],
    })
    await expectOAuthError(
      await redeem({ ...base, client_id: other.id, redirect_uri: 'http://127.0.0.1:7100/callback' }),
      400,
      'invalid_grant',
    )
  })

  it('refuses an expired code and stores codes only as hashes', async () => {
    const { verifier, challenge } = await pkce()
    const c = await code({ challenge })
    expect(
      await server.sql.get('SELECT 1 FROM oauth_authorization_codes WHERE hash = ?', hashToken(c)),
    ).not.toBeNull()
    await server.sql.run(
      "UPDATE oauth_authorization_codes SET expires_at = '2000-01-01T00:00:00.000Z' WHERE hash = ?",
      hashToken(c),
    )
    const response = await redeem({
      code: c,
      code_verifier: verifier,
      client_id: CLI_CLIENT_ID,
      redirect_uri: 'http://127.0.0.1:7100/callback',
    })
    await expectOAuthError(response, 400, 'invalid_grant')
  })
})

describe('the token endpoint', () => {
  it.each(['password', 'implicit', 'token'])(
    'answers grant_type=%s with unsupported_grant_type',
    async (grant) => {
      const response = await postForm(
        server,
        '/oauth/token',
        { grant_type: grant, username: acme.member.email, password: 'x' },
        {
          Authorization: basicAuth(web.id, web.secret!),
        },
      )
      await expectOAuthError(response, 400, 'unsupported_grant_type')
    },
  )

  it('answers a wrong client secret with 401 invalid_client and a Basic challenge', async () => {
    const response = await postForm(
      server,
      '/oauth/token',
      { grant_type: 'authorization_code', code: 'x' },
      {
        Authorization: basicAuth(web.id, 'wrong'),
      },
    )
    await expectOAuthError(response, 401, 'invalid_client')
    expect(response.headers.get('www-authenticate')).toStartWith('Basic')
  })
})
