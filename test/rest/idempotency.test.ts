import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createClient } from '../../server/store/clients.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { countRows, expectError, productBody, readJson } from './fixtures.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

let keys = 0
const newKey = () => `key-${Date.now()}-${++keys}`

const postProduct = (t: Tenant, key: string, json: unknown) =>
  t.fetch('/api/v1/products', { method: 'POST', json, headers: { 'Idempotency-Key': key } })

const PER_ANSWER = new Set(['date', 'x-request-id', 'ratelimit'])
const headersOf = (response: Response) => {
  const out: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    // Date, the request id and the rate-limit state describe each answer, not the resource.
    if (!PER_ANSWER.has(name)) out[name] = value
  })
  return out
}

interface KeyRow {
  org_id: string
  client_id: string
  key: string
  request_hash: string
  state: string
}

const keyRow = (t: Tenant, key: string) =>
  server.db
    .query('SELECT * FROM idempotency_keys WHERE org_id = ? AND client_id = ? AND key = ?')
    .get(t.orgId, t.clientId, key) as KeyRow | null

/** What another instance leaves behind while it processes the same request: a pending key. */
function insertPending(t: Tenant, key: string, requestHash: string, age = 0) {
  const at = new Date(Date.now() - age).toISOString()
  server.db
    .query(
      `INSERT INTO idempotency_keys (org_id, client_id, key, request_hash, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(t.orgId, t.clientId, key, requestHash, at, at)
}

describe('POST /api/v1/products with Idempotency-Key', () => {
  it('replays the first response, status, headers and body, with Idempotent-Replayed: true', async () => {
    const key = newKey()
    const body = productBody()
    const first = await postProduct(acme, key, body)
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstText = await first.text()
    const rows = countRows(server.db, 'products', acme.orgId)
    const events = countRows(server.db, 'events', acme.orgId)

    const again = await postProduct(acme, key, body)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    const { 'idempotent-replayed': _, ...replayedHeaders } = headersOf(again)
    expect(replayedHeaders).toEqual(headersOf(first))
    expect(await again.text()).toBe(firstText)
    expect(countRows(server.db, 'products', acme.orgId)).toBe(rows)
    expect(countRows(server.db, 'events', acme.orgId)).toBe(events)
  })

  it('treats the same fields in another order as the same body', async () => {
    const key = newKey()
    const body = productBody()
    const first = await readJson(await postProduct(acme, key, body))
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const again = await postProduct(acme, key, reordered)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await readJson(again)).id).toBe(first.id)
  })

  it('answers 422 naming Idempotency-Key when the key comes back with another body, creating nothing', async () => {
    const key = newKey()
    expect((await postProduct(acme, key, productBody())).status).toBe(201)
    const rows = countRows(server.db, 'products', acme.orgId)
    const response = await postProduct(acme, key, productBody())
    await expectError(response, 422, 'VALIDATION_ERROR', ['Idempotency-Key'])
    expect(countRows(server.db, 'products', acme.orgId)).toBe(rows)
  })

  it('answers 409 CONFLICT naming Idempotency-Key while the same request is in flight elsewhere', async () => {
    const body = productBody()
    const key = newKey()
    insertPending(acme, key, await fingerprintOf(body))
    const rows = countRows(server.db, 'products', acme.orgId)
    const response = await postProduct(acme, key, body)
    await expectError(response, 409, 'CONFLICT', ['Idempotency-Key'])
    expect(countRows(server.db, 'products', acme.orgId)).toBe(rows)
    expect(keyRow(acme, key)!.state).toBe('pending')
  })

  it('takes over a key whose first request died: pending for more than a minute', async () => {
    const body = productBody()
    const hash = await fingerprintOf(body)
    const key = newKey()
    insertPending(acme, key, hash, 2 * 60_000)
    const response = await postProduct(acme, key, body)
    expect(response.status).toBe(201)
    expect(response.headers.get('idempotent-replayed')).toBeNull()
    expect(keyRow(acme, key)!.state).toBe('done')
  })

  it('frees the key of a request that failed validation, so a corrected retry creates the record', async () => {
    const key = newKey()
    const failed = await postProduct(acme, key, { ...productBody(), price: -1 })
    await expectError(failed, 422, 'VALIDATION_ERROR', ['price'])
    expect(keyRow(acme, key)).toBeNull()
    const retried = await postProduct(acme, key, productBody())
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  it('frees the key of a request that conflicted (409 duplicate sku)', async () => {
    const taken = productBody()
    expect((await postProduct(acme, newKey(), taken)).status).toBe(201)
    const key = newKey()
    await expectError(await postProduct(acme, key, { ...productBody(), sku: taken.sku }), 409, 'CONFLICT')
    expect(keyRow(acme, key)).toBeNull()
    expect((await postProduct(acme, key, productBody())).status).toBe(201)
  })

  it('keeps keys per organization: another tenant with the same key creates its own record', async () => {
    const key = newKey()
    const body = productBody()
    const mine = await readJson(await postProduct(acme, key, body))
    const globex = await server.tenant()
    const response = await postProduct(globex, key, body)
    expect(response.status).toBe(201)
    expect(response.headers.get('idempotent-replayed')).toBeNull()
    const theirs = await readJson(response)
    expect(theirs.id).not.toBe(mine.id)
    expect(countRows(server.db, 'products', globex.orgId)).toBe(1)
  })

  it('keeps keys per client: another client of the same organization creates its own record', async () => {
    const key = newKey()
    const body = productBody()
    const mine = await readJson(await postProduct(acme, key, body))
    const other = await clientOf(acme.orgId)
    const response = await other('/api/v1/products', {
      method: 'POST',
      headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, sku: `${body.sku}-b` }),
    })
    expect(response.status).toBe(201)
    expect((await readJson(response)).id).not.toBe(mine.id)
  })

  it('starts afresh after 24 hours', async () => {
    const key = newKey()
    const body = productBody()
    const first = await readJson(await postProduct(acme, key, body))
    const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString()
    server.db.query('UPDATE idempotency_keys SET created_at = ? WHERE key = ?').run(dayAgo, key)
    await acme.fetch(`/api/v1/products/${first.id}`, { method: 'DELETE' })
    const again = await postProduct(acme, key, body)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect((await readJson(again)).id).not.toBe(first.id)
  })

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'my key'],
  ])('rejects a key %s with 400 naming Idempotency-Key', async (_, key) => {
    await expectError(await postProduct(acme, key, productBody()), 400, 'BAD_REQUEST', ['Idempotency-Key'])
  })
})

/**
 * The fingerprint the server keeps for `body`, learnt from a completed request under a throw-away
 * key; the record it made is deleted again so that the same body can be created once more.
 */
async function fingerprintOf(body: Record<string, unknown>): Promise<string> {
  const probe = newKey()
  const created = await readJson(await postProduct(acme, probe, body))
  expect((await acme.fetch(`/api/v1/products/${created.id}`, { method: 'DELETE' })).status).toBe(204)
  return keyRow(acme, probe)!.request_hash
}

/** A second confidential client of an organization, as a fetch with its own token. */
async function clientOf(orgId: string) {
  const { client, secret } = createClient(server.db, { name: 'second client', orgId, public: false })
  const token = await server.fetch('/oauth/token', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.id}:${secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  const { access_token } = (await token.json()) as { access_token: string }
  return (path: string, init: RequestInit) =>
    server.fetch(path, {
      ...init,
      headers: { ...(init.headers as object), Authorization: `Bearer ${access_token}` },
    })
}
