import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { sha256 } from '@oslojs/crypto/sha2'
import { encodeHexLowerCase } from '@oslojs/encoding'
import { CLI_CLIENT_ID, type NewClient } from '../../server/store/types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { basic, expectOAuthError } from './oauth-assertions.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let orgId: string
let client: { id: string; secret: string }

beforeAll(async () => {
  server = await startTestServer()
  orgId = (await server.store.orgs.create('Token Org')).id
  client = await confidential()
})
afterAll(() => server.stop())

async function confidential(options: Partial<NewClient> = {}): Promise<{ id: string; secret: string }> {
  const created = await server.store.clients.create({ name: 'svc', orgId, public: false, ...options })
  return { id: created.client.id, secret: created.secret! }
}

function token(
  form: Record<string, string> | string,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Response> {
  return server.fetch('/oauth/token', {
    method,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body:
      method === 'GET' ? undefined : typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  })
}

const withBasic = (form: Record<string, string>, c = client) =>
  token(form, { Authorization: basic(c.id, c.secret) })

describe('POST /oauth/token with grant_type=client_credentials', () => {
  it('issues a Bearer token for an hour with every allowed scope, no refresh token, not cached', async () => {
    const response = await withBasic({ grant_type: 'client_credentials' })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type'])
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in).toBe(3600)
    expect((body.scope as string).split(' ').sort()).toEqual([...SCHEMA.scopes].sort())
    const use = await server.fetch('/api/v1/orders', {
      headers: { Authorization: `Bearer ${body.access_token as string}` },
    })
    expect(use.status).toBe(200)
  })

  it('accepts client_id and client_secret in the body (client_secret_post)', async () => {
    const response = await token({
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: client.secret,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('grants exactly the requested scopes, each once', async () => {
    const response = await withBasic({
      grant_type: 'client_credentials',
      scope: 'read:orders  write:orders read:orders',
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { scope: string }).scope).toBe('read:orders write:orders')
  })

  it('grants only the scopes a restricted client is allowed when it asks for none', async () => {
    const narrow = await confidential({ scope: ['read:products', 'read:orders'] })
    const response = await withBasic({ grant_type: 'client_credentials' }, narrow)
    expect(((await response.json()) as { scope: string }).scope).toBe('read:products read:orders')
  })

  it('decodes form-urlencoded Basic credentials with reserved and non-ASCII characters', async () => {
    const special = await confidential()
    const id = 'svc:1 +%/é&=?'
    const secret = 's3cr3t: with spaces+%&/é"\\'
    const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(secret)))
    await server.sql.run(
      'UPDATE oauth_clients SET id = ?, secret_hash = ? WHERE id = ?',
      id,
      hash,
      special.id,
    )
    const response = await withBasic({ grant_type: 'client_credentials' }, { id, secret })
    expect(response.status).toBe(200)
    const post = await token({ grant_type: 'client_credentials', client_id: id, client_secret: secret })
    expect(post.status).toBe(200)
  })

  it('percent-decodes an ordinary credential sent percent-encoded', async () => {
    const encodedId = client.id.replace('_', '%5F')
    const header = `Basic ${btoa(`${encodedId}:${client.secret}`)}`
    const response = await token({ grant_type: 'client_credentials' }, { Authorization: header })
    expect(response.status).toBe(200)
  })
})

describe('POST /oauth/token client authentication', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64')
  const cases: [string, () => Promise<Response>][] = [
    [
      'a wrong secret (Basic)',
      () => withBasic({ grant_type: 'client_credentials' }, { ...client, secret: 'cs_wrong' }),
    ],
    [
      'an unknown client (Basic)',
      () => withBasic({ grant_type: 'client_credentials' }, { ...client, id: 'clt_nobody' }),
    ],
    [
      'a wrong secret (body)',
      () => token({ grant_type: 'client_credentials', client_id: client.id, client_secret: 'cs_wrong' }),
    ],
    [
      'an unknown client (body)',
      () =>
        token({ grant_type: 'client_credentials', client_id: 'clt_nobody', client_secret: client.secret }),
    ],
    ['no credentials at all', () => token({ grant_type: 'client_credentials' })],
    [
      'a confidential client_id without its secret',
      () => token({ grant_type: 'client_credentials', client_id: client.id }),
    ],
    [
      'a Basic header that is not base64',
      () => token({ grant_type: 'client_credentials' }, { Authorization: 'Basic !!!' }),
    ],
    [
      'a Basic value without a colon',
      () => token({ grant_type: 'client_credentials' }, { Authorization: `Basic ${b64(client.id)}` }),
    ],
    [
      'a Basic secret with a stray percent sign',
      () =>
        token({ grant_type: 'client_credentials' }, { Authorization: `Basic ${b64(`${client.id}:%zz`)}` }),
    ],
    [
      'a public client presenting a secret',
      () => token({ grant_type: 'client_credentials', client_id: CLI_CLIENT_ID, client_secret: 'anything' }),
    ],
  ]
  it.each(cases)('rejects %s with 401 invalid_client and a Basic challenge', async (_, send) => {
    const response = await send()
    await expectOAuthError(response, 401, 'invalid_client')
    expect(response.headers.get('www-authenticate')).toStartWith('Basic ')
  })

  it('answers a wrong secret and an unknown client identically', async () => {
    const wrong = await withBasic({ grant_type: 'client_credentials' }, { ...client, secret: 'cs_wrong' })
    const unknown = await withBasic({ grant_type: 'client_credentials' }, { ...client, id: 'clt_nobody' })
    expect(unknown.status).toBe(wrong.status)
    expect(unknown.headers.get('www-authenticate')).toBe(wrong.headers.get('www-authenticate'))
    expect(await unknown.text()).toBe(await wrong.text())
  })

  it('rejects Basic and body credentials together with invalid_request', async () => {
    const response = await token(
      { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
      { Authorization: basic(client.id, client.secret) },
    )
    await expectOAuthError(response, 400, 'invalid_request')
  })

  it('rejects a body client_id that differs from the Basic one with invalid_request', async () => {
    const other = await confidential()
    const response = await token(
      { grant_type: 'client_credentials', client_id: other.id },
      { Authorization: basic(client.id, client.secret) },
    )
    await expectOAuthError(response, 400, 'invalid_request')
  })

  it('never echoes a client secret in any response', async () => {
    const responses = await Promise.all([
      withBasic({ grant_type: 'client_credentials' }),
      withBasic({ grant_type: 'password', username: 'a', password: client.secret }),
      withBasic({ grant_type: 'client_credentials', scope: 'read:nothing' }),
      token(
        { grant_type: 'client_credentials', client_id: 'clt_other' },
        { Authorization: basic(client.id, client.secret) },
      ),
      token(
        { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
        { Authorization: basic(client.id, client.secret) },
      ),
      token({ grant_type: 'client_credentials', client_id: 'clt_nobody', client_secret: client.secret }),
      token({ grant_type: 'implicit', client_id: client.id, client_secret: client.secret }),
    ])
    for (const response of responses) {
      const text = [...response.headers.values()].join('\n') + (await response.text())
      expect(text).not.toContain(client.secret)
      expect(text).not.toContain(client.secret.slice(3, 20))
    }
  })
})

describe('POST /oauth/token request format', () => {
  const grant = 'grant_type=client_credentials'
  const cases: [string, () => Promise<Response>][] = [
    [
      'a JSON body',
      () =>
        token(JSON.stringify({ grant_type: 'client_credentials' }), { 'Content-Type': 'application/json' }),
    ],
    ['a text/plain body', () => token(grant, { 'Content-Type': 'text/plain' })],
    [
      'a body with no Content-Type',
      () => server.fetch('/oauth/token', { method: 'POST', body: new Blob([grant]) }),
    ],
    [
      'a repeated grant_type',
      () => token(`${grant}&${grant}`, { Authorization: basic(client.id, client.secret) }),
    ],
    [
      'a repeated scope',
      () =>
        token(`${grant}&scope=read:orders&scope=read:users`, {
          Authorization: basic(client.id, client.secret),
        }),
    ],
    [
      'a missing grant_type',
      () => token('scope=read:orders', { Authorization: basic(client.id, client.secret) }),
    ],
  ]
  it.each(cases)('rejects %s with 400 invalid_request', async (_, send) => {
    await expectOAuthError(await send(), 400, 'invalid_request')
  })

  it('accepts the form content type with a charset parameter', async () => {
    const response = await token('grant_type=client_credentials', {
      'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
      Authorization: basic(client.id, client.secret),
    })
    expect(response.status).toBe(200)
  })

  it('answers GET with 405 and Allow: POST', async () => {
    const response = await token({}, {}, 'GET')
    await expectOAuthError(response, 405, 'invalid_request')
    expect(response.headers.get('allow')).toBe('POST')
  })
})

describe('POST /oauth/token grant types', () => {
  it.each(['password', 'implicit', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'CLIENT_CREDENTIALS'])(
    'answers grant_type=%s with 400 unsupported_grant_type',
    async (grantType) => {
      const response = await withBasic({ grant_type: grantType, username: 'u', password: 'p', code: 'c' })
      await expectOAuthError(response, 400, 'unsupported_grant_type')
    },
  )

  it('refuses client_credentials to the public CLI client with unauthorized_client', async () => {
    const response = await token({ grant_type: 'client_credentials', client_id: CLI_CLIENT_ID })
    await expectOAuthError(response, 400, 'unauthorized_client')
  })

  it('refuses client_credentials to an organization public client with unauthorized_client', async () => {
    const { client: pub } = await server.store.clients.create({ name: 'spa', orgId, public: true })
    const response = await token({ grant_type: 'client_credentials', client_id: pub.id })
    await expectOAuthError(response, 400, 'unauthorized_client')
  })

  it('refuses client_credentials to a confidential client not registered for it', async () => {
    const web = await confidential({ grantTypes: ['authorization_code'] })
    const response = await withBasic({ grant_type: 'client_credentials' }, web)
    await expectOAuthError(response, 400, 'unauthorized_client')
  })
})

describe('POST /oauth/token scopes', () => {
  it.each([
    ['an unknown scope', 'read:nothing'],
    ['a scope of another shape', 'admin'],
    ['a known scope mixed with an unknown one', 'read:orders write:everything'],
    ['a write scope on the read-only events', 'write:events'],
  ])('rejects %s with 400 invalid_scope', async (_, scope) => {
    await expectOAuthError(await withBasic({ grant_type: 'client_credentials', scope }), 400, 'invalid_scope')
  })

  it('rejects a known scope the client is not allowed with 400 invalid_scope', async () => {
    const narrow = await confidential({ scope: ['read:orders'] })
    const response = await withBasic(
      { grant_type: 'client_credentials', scope: 'read:orders write:orders' },
      narrow,
    )
    const body = await expectOAuthError(response, 400, 'invalid_scope')
    expect(body.error_description).toContain('write:orders')
  })
})
