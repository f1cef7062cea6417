import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeProtectedHeader } from 'jose'
import * as oidc from 'openid-client'
import { startTestServer, type TestServer } from '../support/server.ts'
import { discover, orgWithUsers, registerClient } from './support.ts'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('names the issuer, every endpoint and what each supports', async () => {
    const response = await server.fetch('/.well-known/oauth-authorization-server')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    const metadata = (await response.json()) as Record<string, unknown>
    const base = server.url
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      device_authorization_endpoint: `${base}/oauth/device_authorization`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    })
    expect((metadata.grant_types_supported as string[]).sort()).toEqual([
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ])
    expect(metadata.scopes_supported).toContain('read:line-items')
    expect(metadata.grant_types_supported).not.toContain('password')
    expect(metadata.grant_types_supported).not.toContain('implicit')
  })

  it('lists only endpoints that exist', async () => {
    const metadata = (await (await server.fetch('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >
    for (const [key, value] of Object.entries(metadata)) {
      if (!key.endsWith('_endpoint') && key !== 'jwks_uri') continue
      const response = await fetch(String(value), { method: key === 'jwks_uri' ? 'GET' : 'POST' })
      expect([key, response.status]).not.toEqual([key, 404])
    }
  })

  it('is what openid-client discovers, with the issuer check passing', async () => {
    const config = await discover(server, 'api-cli')
    expect(config.serverMetadata().issuer).toBe(server.url)
    expect(config.serverMetadata().supportsPKCE()).toBe(true)
  })
})

describe('GET /.well-known/jwks.json', () => {
  it('publishes ES256 keys with kids, among them the one access tokens name', async () => {
    const acme = await orgWithUsers(server, 'Acme')
    const svc = await registerClient(server, { orgId: acme.orgId })
    const tokens = await oidc.clientCredentialsGrant(await discover(server, svc.id, svc.secret))
    const { keys } = (await (await server.fetch('/.well-known/jwks.json')).json()) as {
      keys: Record<string, string>[]
    }
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })
      expect(key.kid).toBeString()
      expect(key.d).toBeUndefined()
    }
    expect(keys.map((k) => k.kid)).toContain(decodeProtectedHeader(tokens.access_token).kid!)
  })
})
