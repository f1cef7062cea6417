import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
})
afterAll(() => server.stop())

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } })

/** The live signing key, as stored in the `signing_keys` table. */
async function signingKey(): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const row = (await server.sql.get(
    'SELECT kid, private_jwk, public_jwk FROM signing_keys WHERE retired_at IS NULL',
  )) as { kid: string; private_jwk: string; public_jwk: string }
  return { kid: row.kid, privateJwk: JSON.parse(row.private_jwk), publicJwk: JSON.parse(row.public_jwk) }
}

function validClaims(): JWTPayload {
  const now = Math.floor(Date.now() / 1000)
  return {
    iss: server.url,
    aud: server.url,
    sub: acme.clientId,
    client_id: acme.clientId,
    scope: 'read:orders',
    org_id: acme.orgId,
    iat: now,
    exp: now + 3600,
    jti: crypto.randomUUID(),
  }
}

async function signWithRealKey(claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, privateJwk } = await signingKey()
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header })
    .sign(await importJWK(privateJwk, 'ES256'))
}

const b64json = (value: unknown) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(value)))

describe('access tokens from the token endpoint', () => {
  it('are ES256 JWTs typed at+jwt with the key id of a published key', async () => {
    const header = decodeProtectedHeader(acme.token)
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: (await signingKey()).kid })
  })

  it('carry issuer, audience, subject, client, scope, organization, an hour of life and a jti', async () => {
    const claims = decodeJwt(acme.token)
    expect(claims.iss).toBe(server.url)
    expect(claims.aud).toBe(server.url)
    expect(claims.sub).toBe(acme.clientId)
    expect(claims.client_id).toBe(acme.clientId)
    expect(claims.org_id).toBe(acme.orgId)
    expect(typeof claims.scope).toBe('string')
    expect((claims.scope as string).split(' ')).toContain('read:orders')
    expect(claims.exp! - claims.iat!).toBe(3600)
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60)
    expect(claims.jti).toBeString()
    expect(decodeJwt(globex.token).jti).not.toBe(claims.jti)
  })

  it('verify against the published JWKS', async () => {
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`))
    const { payload } = await jwtVerify(acme.token, jwks, {
      issuer: server.url,
      audience: server.url,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    })
    expect(payload.org_id).toBe(acme.orgId)
  })
})

describe('GET /.well-known/jwks.json', () => {
  it('publishes only public EC P-256 signing keys', async () => {
    const response = await server.fetch('/.well-known/jwks.json')
    expect(response.status).toBe(200)
    const { keys } = (await response.json()) as { keys: JWK[] }
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })
      expect(key.kid).toBeString()
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(member)
    }
  })
})

describe('a request with a forged or unusable access token', () => {
  const forgeries: [string, () => Promise<string>][] = [
    [
      'signed by another ES256 key under the same kid',
      async () => {
        const { privateKey } = await generateKeyPair('ES256')
        return new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: (await signingKey()).kid })
          .sign(privateKey)
      },
    ],
    [
      'signed by another key under an unknown kid',
      async () => {
        const { privateKey } = await generateKeyPair('ES256')
        return new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'nope' })
          .sign(privateKey)
      },
    ],
    [
      'with alg none',
      async () =>
        `${b64json({ alg: 'none', typ: 'at+jwt', kid: (await signingKey()).kid })}.${b64json(validClaims())}.`,
    ],
    [
      'HS256-signed with the public key as PEM',
      async () => {
        const pem = await exportSPKI((await importJWK((await signingKey()).publicJwk, 'ES256')) as CryptoKey)
        return new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: (await signingKey()).kid })
          .sign(new TextEncoder().encode(pem))
      },
    ],
    [
      'HS256-signed with the public JWK as JSON',
      async () =>
        new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: (await signingKey()).kid })
          .sign(new TextEncoder().encode(JSON.stringify((await signingKey()).publicJwk))),
    ],
    [
      'whose payload was switched to another organization',
      async () => {
        const [header, payload, signature] = acme.token.split('.')
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
        expect(claims.org_id).toBe(acme.orgId)
        return `${header}.${b64json({ ...claims, org_id: globex.orgId })}.${signature}`
      },
    ],
    [
      'that has expired',
      async () => {
        const now = Math.floor(Date.now() / 1000)
        return signWithRealKey({ ...validClaims(), iat: now - 3700, exp: now - 100 })
      },
    ],
    ['from another issuer', async () => signWithRealKey({ ...validClaims(), iss: 'https://evil.example' })],
    ['for another audience', async () => signWithRealKey({ ...validClaims(), aud: 'https://other.example' })],
    ['typed JWT instead of at+jwt', async () => signWithRealKey(validClaims(), { typ: 'JWT' })],
    ['with no typ', async () => signWithRealKey(validClaims(), { typ: undefined })],
    ['with no kid', async () => signWithRealKey(validClaims(), { kid: undefined })],
    ['that is not a JWT', async () => 'not-a-jwt'],
    ...['sub', 'exp', 'iat', 'client_id', 'scope', 'org_id', 'iss', 'aud'].map(
      (claim): [string, () => Promise<string>] => [
        `missing the ${claim} claim`,
        async () => {
          const claims = validClaims()
          delete claims[claim]
          return signWithRealKey(claims)
        },
      ],
    ),
    ['with a non-string org_id', async () => signWithRealKey({ ...validClaims(), org_id: 42 })],
  ]

  it('accepts the real key with valid claims (control case)', async () => {
    const response = await server.fetch('/api/v1/orders', bearer(await signWithRealKey(validClaims())))
    expect(response.status).toBe(200)
  })

  // The server keeps verified tokens by their Authorization header; the cache must not outlive them.
  it('is 401 once a token it has already accepted expires, sent with the very same header', async () => {
    const exp = Math.floor(Date.now() / 1000) + 2
    const token = await signWithRealKey({ ...validClaims(), exp })
    expect((await server.fetch('/api/v1/orders', bearer(token))).status).toBe(200)
    await Bun.sleep(exp * 1000 - Date.now() + 50)
    const response = await server.fetch('/api/v1/orders', bearer(token))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('error_description="the token has expired"')
  })

  it.each(forgeries)('is 401 invalid_token when the token is %s', async (_, forge) => {
    const response = await server.fetch('/api/v1/orders', bearer(await forge()))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer realm="api", error="invalid_token"')
    const body = (await response.json()) as { error: { code: string } }
    expect(body.error.code).toBe('UNAUTHORIZED')
  })

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', `Basic ${btoa('a:b')}`],
    ['Bearer with no token', 'Bearer '],
    ['Bearer with two words', 'Bearer abc def'],
    ['a token with characters outside token68', 'Bearer abc"def'],
  ])('is 401 with the bare Bearer challenge for %s', async (_, header) => {
    const response = await server.fetch(
      '/api/v1/orders',
      header ? { headers: { Authorization: header } } : {},
    )
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED')
  })
})
