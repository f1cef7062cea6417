import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import { hashToken } from '../../server/crypto/token-hash.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { codeFlow, discover, oauthErrorOf, orgWithUsers, postForm, registerClient } from './support.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let cli: oidc.Configuration

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  cli = await discover(server, CLI_CLIENT_ID)
})
afterAll(() => server.stop())

const login = (email = acme.member.email, params?: Record<string, string>) =>
  codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email, params)
const api = (token: string) =>
  server.fetch('/api/v1/orders', { headers: { Authorization: `Bearer ${token}` } })
const refresh = (token: string, params?: Record<string, string>) => oidc.refreshTokenGrant(cli, token, params)

describe('POST /oauth/token, grant_type=refresh_token', () => {
  it('rotates the refresh token on every use and issues a working access token', async () => {
    const first = await login()
    const second = await refresh(first.refresh_token!)
    const third = await refresh(second.refresh_token!)
    const tokens = new Set([first.refresh_token, second.refresh_token, third.refresh_token])
    expect(tokens.size).toBe(3)
    expect(third.scope).toBe(first.scope!)
    expect((await api(third.access_token)).status).toBe(200)
  })

  it('answers with Cache-Control: no-store', async () => {
    const first = await login()
    const response = await postForm(server, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: CLI_CLIENT_ID,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('stores refresh tokens only as hashes', async () => {
    const first = await login()
    const rows = (await server.sql.all('SELECT hash FROM oauth_refresh_tokens')) as { hash: string }[]
    expect(rows.map((r) => r.hash)).toContain(hashToken(first.refresh_token!))
    expect(JSON.stringify(rows)).not.toContain(first.refresh_token!)
  })
})

describe('reusing a rotated refresh token (RFC 9700 §4.14.2)', () => {
  it('is invalid_grant and revokes the whole family: refresh and access tokens alike', async () => {
    const first = await login()
    const second = await refresh(first.refresh_token!)
    expect((await api(second.access_token)).status).toBe(200)
    expect(await oauthErrorOf(refresh(first.refresh_token!))).toBe('invalid_grant')
    expect(await oauthErrorOf(refresh(second.refresh_token!))).toBe('invalid_grant')
    expect((await api(second.access_token)).status).toBe(401)
    expect((await api(first.access_token)).status).toBe(401)
  })

  it('leaves the other grants of the same user alone', async () => {
    const stolen = await login()
    const other = await login()
    await refresh(stolen.refresh_token!)
    await oauthErrorOf(refresh(stolen.refresh_token!))
    expect((await api(other.access_token)).status).toBe(200)
    expect((await refresh(other.refresh_token!)).access_token).toBeString()
  })
})

describe('refresh token bindings and limits', () => {
  it('is bound to its client: another client gets invalid_grant and the token stays good', async () => {
    const first = await login()
    const other = await registerClient(server, {
      orgId: null,
      public: true,
      redirectUris: ['http://127.0.0.1/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
    })
    const otherConfig = await discover(server, other.id)
    expect(await oauthErrorOf(oidc.refreshTokenGrant(otherConfig, first.refresh_token!))).toBe(
      'invalid_grant',
    )
    expect((await refresh(first.refresh_token!)).access_token).toBeString()
  })

  it('may narrow the scope (RFC 6749 §6) but never widen it', async () => {
    const first = await login(acme.member.email, { scope: 'read:orders write:orders' })
    const narrower = await refresh(first.refresh_token!, { scope: 'read:orders' })
    expect(narrower.scope).toBe('read:orders')
    // The refresh token keeps the grant's full scope.
    expect((await refresh(narrower.refresh_token!)).scope).toBe('read:orders write:orders')
    const latest = await login(acme.member.email, { scope: 'read:orders' })
    expect(await oauthErrorOf(refresh(latest.refresh_token!, { scope: 'read:orders write:orders' }))).toBe(
      'invalid_scope',
    )
  })

  it("never carries more than the user's role allows now", async () => {
    const { createUser } = await import('../../server/admin/users.ts')
    const { id } = await createUser(server.store, {
      org: acme.orgId,
      email: 'demoted@acme.example',
      name: 'Demoted',
      role: 'member',
      password: 'correct horse battery',
    })
    const first = await login('demoted@acme.example', { scope: 'read:orders write:orders' })
    await server.sql.run("UPDATE users SET role = 'viewer' WHERE id = ?", id)
    expect((await refresh(first.refresh_token!)).scope).toBe('read:orders')
  })

  it('expires after the idle time', async () => {
    const first = await login()
    await server.sql.run(
      "UPDATE oauth_refresh_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE hash = ?",
      hashToken(first.refresh_token!),
    )
    expect(await oauthErrorOf(refresh(first.refresh_token!))).toBe('invalid_grant')
  })

  it('expires with its grant (the absolute lifetime), however recently it was rotated', async () => {
    const first = await login()
    const second = await refresh(first.refresh_token!)
    await server.sql.run(
      "UPDATE oauth_grants SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = (SELECT grant_id FROM oauth_refresh_tokens WHERE hash = ?)",
      hashToken(second.refresh_token!),
    )
    expect(await oauthErrorOf(refresh(second.refresh_token!))).toBe('invalid_grant')
  })

  it('dies with its user, and so do the access tokens', async () => {
    const { createUser } = await import('../../server/admin/users.ts')
    const { id } = await createUser(server.store, {
      org: acme.orgId,
      email: 'leaving@acme.example',
      name: 'Leaving',
      role: 'member',
      password: 'correct horse battery',
    })
    const first = await login('leaving@acme.example')
    await server.sql.run('DELETE FROM users WHERE id = ?', id)
    expect((await api(first.access_token)).status).toBe(401)
    expect(await oauthErrorOf(refresh(first.refresh_token!))).toBe('invalid_grant')
  })

  it('is never issued for client credentials', async () => {
    const svc = await registerClient(server, { orgId: acme.orgId })
    const config = await discover(server, svc.id, svc.secret)
    const tokens = await oidc.clientCredentialsGrant(config)
    expect(tokens.refresh_token).toBeUndefined()
    expect(await oauthErrorOf(oidc.refreshTokenGrant(config, 'rt_not-a-token'))).toBe('unauthorized_client')
  })
})
