/**
 * `/api/v2/oauth-clients` (docs/oauth.md, "OAuth clients as a resource"): an organization's OAuth
 * clients as a collection. The secret of a confidential client works at /oauth/token and shows only
 * in the answers to the create and to rotate-secret (and never in the log); validation names the
 * field; changes; another organization's clients and the service's own are not there. Revoke and
 * delete: revoke.test.ts; roles: roles.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../server/ops/logger.ts'
import { data } from '../graphql/support.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'
import { type Client, clientsOf } from './support.ts'

let server: TestServer
let tenant: Tenant
let clients: ReturnType<typeof clientsOf>
const lines: string[] = []
/** Every secret an answer showed: none may reach a line of the log. */
const secrets: string[] = []

beforeAll(async () => {
  server = await startTestServer({ logger: createLogger('debug', (line) => lines.push(line)) })
  tenant = await server.tenant()
  clients = clientsOf(server, tenant, secrets)
})
afterAll(async () => {
  await server.stop()
  expect(secrets.length).toBeGreaterThan(3)
  for (const secret of secrets) expect(lines.join('\n')).not.toContain(secret)
  expect(lines.length).toBeGreaterThan(10)
})

describe('POST /api/v2/oauth-clients', () => {
  it('creates a confidential client with the defaults client create picks, and its secret once', async () => {
    const client = await clients.create({ name: 'billing' })
    expect(client).toMatchObject({
      name: 'billing',
      public: false,
      grantTypes: ['client_credentials'],
      redirectUris: [],
      revokedAt: null,
    })
    expect(client.id).toMatch(/^clt_[0-9a-hjkmnp-tv-z]{26}$/)
    expect(client.secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/)
    expect(client.scopes).toContain('read:oauth-clients')
    expect(await clients.tokenStatus(client.id, client.secret!)).toBe(200)
  })

  it('creates a public client without a secret, with the browser grants', async () => {
    const client = await clients.create({
      name: 'web',
      public: true,
      redirectUris: ['https://app.example/callback'],
    })
    expect(client).toMatchObject({
      public: true,
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://app.example/callback'],
    })
    expect(client.secret).toBeUndefined()
    const rotate = await clients.action(client.id, 'rotate-secret')
    expect(rotate.status).toBe(409)
    expect(
      ((await rotate.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field,
    ).toBe('public')
  })

  it.each([
    { case: 'an unknown grant type', body: { grantTypes: ['password'] }, field: 'grantTypes' },
    { case: 'no grant type', body: { grantTypes: [] }, field: 'grantTypes' },
    {
      case: 'client_credentials on a public client',
      body: { public: true, grantTypes: ['client_credentials'] },
      field: 'grantTypes',
    },
    {
      case: 'authorization_code without a redirect URI',
      body: { grantTypes: ['authorization_code'] },
      field: 'redirectUris',
    },
    {
      case: 'a public client with no redirect URI (its default grant needs one)',
      body: { public: true },
      field: 'redirectUris',
    },
    { case: 'a relative redirect URI', body: { redirectUris: ['/callback'] }, field: 'redirectUris[0]' },
    {
      case: 'a redirect URI with a fragment',
      body: { redirectUris: ['https://a.example/cb#x'] },
      field: 'redirectUris[0]',
    },
    {
      case: 'a javascript: redirect URI',
      body: { redirectUris: ['javascript:alert(1)'] },
      field: 'redirectUris[0]',
    },
    { case: 'an unknown scope', body: { scopes: ['read:unicorns'] }, field: 'scopes' },
    { case: 'no scope', body: { scopes: [] }, field: 'scopes' },
    { case: 'a revokedAt', body: { revokedAt: '2026-01-01T00:00:00Z' }, field: 'revokedAt' },
    { case: 'no name', body: {}, field: 'name' },
  ] as { case: string; body: Record<string, unknown>; field: string }[])(
    'refuses $case with 422 naming $field',
    async ({ body, field }) => {
      const response = await tenant.fetch('/api/v2/oauth-clients', {
        method: 'POST',
        json: { name: 'x', ...body, ...(field === 'name' ? { name: undefined } : {}) },
      })
      expect(response.status).toBe(422)
      const { error } = (await response.json()) as { error: { code: string; details: { field: string }[] } }
      expect(error.code).toBe('VALIDATION_ERROR')
      expect(error.details.map((d) => d.field)).toContain(field)
    },
  )
})

describe('the secret', () => {
  it('appears in no read, list, event or GraphQL query', async () => {
    const client = await clients.create({ name: 'secretive' })
    const secret = client.secret!
    const reads = await Promise.all([
      tenant.fetch(`/api/v2/oauth-clients/${client.id}`).then((r) => r.text()),
      tenant.fetch('/api/v2/oauth-clients').then((r) => r.text()),
      tenant.fetch(`/api/v2/events?resource_id=${client.id}`).then((r) => r.text()),
      tenant.fetch('/api/v1/oauth-clients?per_page=100').then((r) => r.text()),
    ])
    const graphql = await data<{ oauthClient: { id: string; secret: string | null } }>(
      server,
      tenant,
      'query($id: ID!) { oauthClient(id: $id) { id secret } oauthClients { nodes { id secret } } }',
      { id: client.id },
    )
    expect(graphql.oauthClient).toEqual({ id: client.id, secret: null })
    for (const text of [...reads, JSON.stringify(graphql)]) {
      expect(text).toContain(client.id)
      expect(text).not.toContain(secret)
      expect(text).not.toContain('"secret":"cs_')
    }
    const events = JSON.parse(reads[2]!) as { data: { type: string }[] }
    expect(events.data.map((e) => e.type)).toEqual(['oauth_client.created'])
  })

  it('rotate-secret answers a new one; the old is refused at once', async () => {
    const client = await clients.create({ name: 'rotating' })
    const rotated = await clients.action(client.id, 'rotate-secret')
    expect(rotated.status).toBe(200)
    const body = (await rotated.json()) as Client
    secrets.push(body.secret!)
    expect(body.secret).toMatch(/^cs_/)
    expect(body.secret).not.toBe(client.secret)
    expect(await clients.tokenStatus(client.id, client.secret!)).toBe(401)
    expect(await clients.tokenStatus(client.id, body.secret!)).toBe(200)
    const events = await (await tenant.fetch(`/api/v2/events?resource_id=${client.id}`)).text()
    expect(events).toContain('oauth_client.secret_rotated')
    expect(events).not.toContain(body.secret!)
  })
})

describe('changes', () => {
  it('PATCH with If-Match changes the scopes the client may ask for; public is set on create only', async () => {
    const client = await clients.create({ name: 'narrow', scopes: ['read:products'] })
    const read = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`)
    const etag = read.headers.get('ETag')!
    await read.body?.cancel()
    const stale = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, {
      method: 'PATCH',
      headers: { 'If-Match': '"stale"' },
      json: { scopes: ['read:products', 'write:products'] },
    })
    expect(stale.status).toBe(412)
    const patched = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, {
      method: 'PATCH',
      headers: { 'If-Match': etag },
      json: { scopes: ['read:products', 'write:products'] },
    })
    expect(patched.status).toBe(200)
    expect(((await patched.json()) as Client).scopes).toEqual(['read:products', 'write:products'])
    expect(
      await clientToken(server.url, { id: client.id, secret: client.secret! }, 'write:products'),
    ).toBeString()

    const flip = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, {
      method: 'PATCH',
      json: { public: true },
    })
    expect(flip.status).toBe(422)
    expect(((await flip.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field).toBe(
      'public',
    )
  })

  it('PUT resets the grant types and scopes to their defaults', async () => {
    const client = await clients.create({
      name: 'put',
      scopes: ['read:products'],
      grantTypes: ['client_credentials'],
    })
    const put = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, {
      method: 'PUT',
      json: { name: 'put again' },
    })
    expect(put.status).toBe(200)
    const body = (await put.json()) as Client
    expect(body).toMatchObject({ name: 'put again', grantTypes: ['client_credentials'], redirectUris: [] })
    expect(body.scopes).toContain('write:orders')
  })
})

describe('who sees which clients', () => {
  it("another organization's clients are not listed, and answer 403 as any record of another organization", async () => {
    const other = await server.tenant()
    const theirs = await clients.create({ name: 'theirs' }, other)
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await tenant.fetch(`/api/v2/oauth-clients/${theirs.id}`, {
        method,
        ...(method === 'PATCH' ? { json: { name: 'mine' } } : {}),
      })
      expect([method, response.status]).toEqual([method, 403])
      await response.body?.cancel()
    }
    expect((await clients.action(theirs.id, 'revoke')).status).toBe(403)
    const read = (await (await other.fetch(`/api/v2/oauth-clients/${theirs.id}`)).json()) as Client
    expect(read.revokedAt).toBeNull()
    const list = (await (await tenant.fetch('/api/v2/oauth-clients?per_page=100')).json()) as {
      data: Client[]
    }
    const ids = list.data.map((c) => c.id)
    expect(ids).not.toContain(theirs.id)
    expect(ids).not.toContain('api-cli')
    expect(ids).toContain(tenant.clientId)
  })

  it('the command-line client (no organization) is not one of them', async () => {
    expect((await tenant.fetch('/api/v2/oauth-clients/api-cli')).status).toBe(404)
  })
})
