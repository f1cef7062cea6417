import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { expectOAuthError } from '../auth/oauth-assertions.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  basicAuth,
  codeFlow,
  discover,
  oauthErrorOf,
  orgWithUsers,
  postForm,
  registerClient,
} from './support.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let globex: Awaited<ReturnType<typeof orgWithUsers>>
let cli: oidc.Configuration
/** A confidential client of Acme, which may introspect Acme's tokens. */
let acmeService: oidc.Configuration
let acmeServiceCreds: { id: string; secret?: string }

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  globex = await orgWithUsers(server, 'Globex')
  cli = await discover(server, CLI_CLIENT_ID)
  acmeServiceCreds = await registerClient(server, { orgId: acme.orgId })
  acmeService = await discover(server, acmeServiceCreds.id, acmeServiceCreds.secret)
})
afterAll(() => server.stop())

const login = (email = acme.member.email) => codeFlow(server, cli, 'http://127.0.0.1:6000/callback', email)
const api = (token: string) =>
  server.fetch('/api/v1/orders', { headers: { Authorization: `Bearer ${token}` } })

describe('POST /oauth/introspect (RFC 7662)', () => {
  it("describes an active access token of the caller's organization", async () => {
    const tokens = await login()
    const info = await oidc.tokenIntrospection(acmeService, tokens.access_token)
    expect(info).toMatchObject({
      active: true,
      client_id: CLI_CLIENT_ID,
      sub: acme.member.id,
      scope: tokens.scope!,
      token_type: 'Bearer',
      iss: server.url,
      org_id: acme.orgId,
    })
    expect(info.exp! - info.iat!).toBe(3600)
  })

  it('describes an active refresh token', async () => {
    const tokens = await login()
    const info = await oidc.tokenIntrospection(acmeService, tokens.refresh_token!, {
      token_type_hint: 'refresh_token',
    })
    expect(info).toMatchObject({
      active: true,
      token_use: 'refresh_token',
      sub: acme.member.id,
      client_id: CLI_CLIENT_ID,
    })
  })

  it('says only {"active": false} for tokens of another organization, garbage, and revoked tokens', async () => {
    const theirs = await login(globex.member.email)
    const revoked = await login()
    await oidc.tokenRevocation(cli, revoked.refresh_token!)
    for (const token of [
      theirs.access_token,
      theirs.refresh_token!,
      'garbage',
      'a.b.c',
      revoked.access_token,
    ]) {
      const response = await postForm(
        server,
        '/oauth/introspect',
        { token },
        {
          Authorization: basicAuth(acmeServiceCreds.id, acmeServiceCreds.secret!),
        },
      )
      expect(response.status).toBe(200)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await response.json()).toEqual({ active: false })
    }
  })

  it('needs an authenticated confidential client: 401 invalid_client with WWW-Authenticate', async () => {
    for (const form of [{ token: 'x' }, { token: 'x', client_id: CLI_CLIENT_ID }] as Record<
      string,
      string
    >[]) {
      const response = await postForm(server, '/oauth/introspect', form)
      await expectOAuthError(response, 401, 'invalid_client')
      expect(response.headers.get('www-authenticate')).toStartWith('Basic')
    }
  })

  it('needs a token: 400 invalid_request', async () => {
    const response = await postForm(
      server,
      '/oauth/introspect',
      {},
      {
        Authorization: basicAuth(acmeServiceCreds.id, acmeServiceCreds.secret!),
      },
    )
    await expectOAuthError(response, 400, 'invalid_request')
  })
})

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes a refresh token and its whole grant, access tokens included', async () => {
    const tokens = await login()
    await oidc.tokenRevocation(cli, tokens.refresh_token!)
    expect(await oauthErrorOf(oidc.refreshTokenGrant(cli, tokens.refresh_token!))).toBe('invalid_grant')
    expect((await api(tokens.access_token)).status).toBe(401)
  })

  it("revokes a user's access token by revoking its grant (the refresh token with it)", async () => {
    const tokens = await login()
    await oidc.tokenRevocation(cli, tokens.access_token, { token_type_hint: 'access_token' })
    expect((await api(tokens.access_token)).status).toBe(401)
    expect(await oauthErrorOf(oidc.refreshTokenGrant(cli, tokens.refresh_token!))).toBe('invalid_grant')
  })

  it('revokes one client-credentials access token by its jti, leaving the others valid', async () => {
    const first = await oidc.clientCredentialsGrant(acmeService)
    const second = await oidc.clientCredentialsGrant(acmeService)
    expect((await api(first.access_token)).status).toBe(200)
    await oidc.tokenRevocation(acmeService, first.access_token)
    expect((await api(first.access_token)).status).toBe(401)
    expect((await api(second.access_token)).status).toBe(200)
    expect((await oidc.tokenIntrospection(acmeService, first.access_token)).active).toBe(false)
  })

  it('answers 200 for unknown and already revoked tokens', async () => {
    const tokens = await login()
    for (const token of ['rt_unknown', 'not-a-token', tokens.refresh_token!, tokens.refresh_token!]) {
      const response = await postForm(server, '/oauth/revoke', { token, client_id: CLI_CLIENT_ID })
      expect(response.status).toBe(200)
      expect(response.headers.get('cache-control')).toBe('no-store')
    }
  })

  it("refuses to revoke another client's token (RFC 7009 §2.1), which stays valid", async () => {
    const tokens = await login()
    const response = await postForm(
      server,
      '/oauth/revoke',
      { token: tokens.refresh_token! },
      {
        Authorization: basicAuth(acmeServiceCreds.id, acmeServiceCreds.secret!),
      },
    )
    await expectOAuthError(response, 400, 'invalid_request')
    expect((await api(tokens.access_token)).status).toBe(200)
  })

  it('authenticates the client: a wrong secret is 401 invalid_client', async () => {
    const response = await postForm(
      server,
      '/oauth/revoke',
      { token: 'x' },
      {
        Authorization: basicAuth(acmeServiceCreds.id, 'wrong'),
      },
    )
    await expectOAuthError(response, 401, 'invalid_client')
    expect(response.headers.get('www-authenticate')).toStartWith('Basic')
  })

  it('answers GET with 405', async () => {
    const response = await server.fetch('/oauth/revoke')
    await expectOAuthError(response, 405, 'invalid_request')
  })
})
