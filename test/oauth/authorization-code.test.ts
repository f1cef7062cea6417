import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeJwt } from 'jose'
import * as oidc from 'openid-client'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  authorizeByHttp,
  codeFlow,
  discover,
  orgWithUsers,
  PageAgent,
  pkce,
  registerClient,
} from './support.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let globex: Awaited<ReturnType<typeof orgWithUsers>>
const WEB_REDIRECT = 'https://app.example/callback'

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  globex = await orgWithUsers(server, 'Globex')
})
afterAll(() => server.stop())

const authorize = (
  config: oidc.Configuration,
  redirectUri: string,
  email: string,
  params?: Record<string, string>,
) => codeFlow(server, config, redirectUri, email, params)

const api = (token: string, path = '/api/v1/orders', init: RequestInit = {}) =>
  server.fetch(path, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } })

describe('GET /oauth/authorize + POST /oauth/token, grant_type=authorization_code', () => {
  it('lets the public CLI client authorize with PKCE on any loopback port (RFC 8252)', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    for (const redirect of ['http://127.0.0.1:53123/callback', 'http://[::1]:61000/callback']) {
      const tokens = await authorize(config, redirect, acme.member.email, {
        scope: 'read:orders write:orders',
      })
      expect(tokens.token_type).toBe('bearer')
      expect(tokens.expires_in).toBe(3600)
      expect(tokens.scope).toBe('read:orders write:orders')
      expect(tokens.refresh_token).toStartWith('rt_')
      const claims = decodeJwt(tokens.access_token)
      expect(claims).toMatchObject({ sub: acme.member.id, org_id: acme.orgId, client_id: CLI_CLIENT_ID })
      expect(claims.sid).toStartWith('grt_')
      expect((await api(tokens.access_token)).status).toBe(200)
    }
  })

  it('authenticates a confidential client (client_secret_basic) and echoes state', async () => {
    const web = await registerClient(server, {
      orgId: acme.orgId,
      redirectUris: [WEB_REDIRECT],
      grantTypes: ['authorization_code', 'refresh_token'],
    })
    const config = await discover(server, web.id, web.secret)
    const tokens = await authorize(config, WEB_REDIRECT, acme.admin.email)
    expect(tokens.refresh_token).toBeString()
    expect((await api(tokens.access_token)).status).toBe(200)
  })

  it('grants what was asked ∩ what the client may ask ∩ what the role allows', async () => {
    const narrow = await registerClient(server, {
      orgId: null,
      public: true,
      redirectUris: ['http://127.0.0.1/cb'],
      grantTypes: ['authorization_code'],
      scope: ['read:orders', 'write:orders', 'delete:orders', 'read:products'],
    })
    const config = await discover(server, narrow.id)
    const cases: [string, string, string | undefined, string][] = [
      ['viewer', acme.viewer.email, 'read:orders write:orders', 'read:orders'],
      ['member', acme.member.email, 'read:orders write:orders delete:orders', 'read:orders write:orders'],
      ['admin', acme.admin.email, 'delete:orders read:users', 'delete:orders'],
      ['member (nothing asked)', acme.member.email, undefined, 'read:products read:orders write:orders'],
    ]
    for (const [, email, scope, granted] of cases) {
      const tokens = await authorize(config, 'http://127.0.0.1:4000/cb', email, scope ? { scope } : {})
      expect(tokens.scope).toBe(granted)
      expect(tokens.refresh_token).toBeUndefined()
    }
  })

  it('makes the viewer token read-only at the API', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    const tokens = await authorize(config, 'http://127.0.0.1:4100/callback', acme.viewer.email)
    expect(tokens.scope!.split(' ').every((s) => s.startsWith('read:'))).toBe(true)
    expect((await api(tokens.access_token)).status).toBe(200)
    const write = await api(tokens.access_token, '/api/v1/products', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x', sku: 'x-1', price: 1, currency: 'EUR' }),
    })
    expect(write.status).toBe(403)
  })

  it('acts in the organization of the user who logged in, with the CLI client', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    const tokens = await authorize(config, 'http://127.0.0.1:4200/callback', globex.admin.email)
    expect(decodeJwt(tokens.access_token).org_id).toBe(globex.orgId)
  })

  it('lets only users of its organization log in to a client registered to one', async () => {
    const acmeOnly = await registerClient(server, {
      orgId: acme.orgId,
      public: true,
      redirectUris: ['http://127.0.0.1/cb'],
    })
    const config = await discover(server, acmeOnly.id)
    const { challenge } = await pkce()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:4300/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    const agent = new PageAgent(server.url)
    const page = await (await agent.get(String(url))).text()
    const login = await agent.submit(page, 'login', {
      email: globex.admin.email,
      password: 'correct horse battery',
    })
    expect(login.status).toBe(401)
    expect(await login.text()).toContain('do not match an account')
  })

  it('returns access_denied (with state and iss) when the user denies', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    const { challenge, state } = await pkce()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:4400/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    })
    const callback = new URL(await authorizeByHttp(new PageAgent(server.url), url, acme.member, 'deny'))
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({
      error: 'access_denied',
      state,
      iss: server.url,
    })
    const failure = await oidc
      .authorizationCodeGrant(config, callback, { pkceCodeVerifier: 'x'.repeat(43), expectedState: state })
      .catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(oidc.AuthorizationResponseError)
    expect((failure as oidc.AuthorizationResponseError).error).toBe('access_denied')
  })

  it('keeps the login for the next authorization: the second one asks only for consent', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    const agent = new PageAgent(server.url)
    const { challenge } = await pkce()
    const url = (port: number) =>
      String(
        oidc.buildAuthorizationUrl(config, {
          redirect_uri: `http://127.0.0.1:${port}/callback`,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      )
    await authorizeByHttp(agent, url(4500), acme.member)
    const second = await (await agent.get(url(4501))).text()
    expect(second).toContain('name="step" value="consent"')
    expect(second).not.toContain('name="step" value="login"')
  })
})

describe('redeeming an authorization code twice', () => {
  it('is invalid_grant and revokes the access and refresh tokens the first redemption issued', async () => {
    const config = await discover(server, CLI_CLIENT_ID)
    const { verifier, challenge, state } = await pkce()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:4600/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    })
    const callback = new URL(await authorizeByHttp(new PageAgent(server.url), url, acme.member))
    const first = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    })
    expect((await api(first.access_token)).status).toBe(200)
    const second = await oidc
      .authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })
      .catch((e: unknown) => e)
    expect(second).toBeInstanceOf(oidc.ResponseBodyError)
    expect((second as oidc.ResponseBodyError).error).toBe('invalid_grant')
    expect((await api(first.access_token)).status).toBe(401)
    const refresh = await oidc.refreshTokenGrant(config, first.refresh_token!).catch((e: unknown) => e)
    expect((refresh as oidc.ResponseBodyError).error).toBe('invalid_grant')
  })
})
