import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { onPostgres } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'
import { expectError, productBody, readJson } from './fixtures.ts'

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
  subject: string
  key: string
  request_hash: string
  status: number
}

const keyRow = async (t: Tenant, key: string) =>
  (await server.sql.get(
    'SELECT * FROM idempotency_keys WHERE org_id = ? AND client_id = ? AND key = ?',
    t.orgId,
    t.clientId,
    key,
  )) as KeyRow | null

/** A client-credentials token of an existing client, narrowed to `scope`. */
async function tokenOf(clientId: string, secret: string, scope: string): Promise<string> {
  const response = await server.fetch('/oauth/token', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe('POST /api/v1/products with Idempotency-Key', () => {
  it('replays the first response, status, headers and body, with Idempotent-Replayed: true', async () => {
    const key = newKey()
    const body = productBody()
    const first = await postProduct(acme, key, body)
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstText = await first.text()
    const rows = await server.sql.count('products', acme.orgId)
    const events = await server.sql.count('events', acme.orgId)

    const again = await postProduct(acme, key, body)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    const { 'idempotent-replayed': _, ...replayedHeaders } = headersOf(again)
    expect(replayedHeaders).toEqual(headersOf(first))
    expect(await again.text()).toBe(firstText)
    expect(await server.sql.count('products', acme.orgId)).toBe(rows)
    expect(await server.sql.count('events', acme.orgId)).toBe(events)
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
    const rows = await server.sql.count('products', acme.orgId)
    const response = await postProduct(acme, key, productBody())
    await expectError(response, 422, 'VALIDATION_ERROR', ['Idempotency-Key'])
    expect(await server.sql.count('products', acme.orgId)).toBe(rows)
  })

  it('creates one record for concurrent requests with one key; the others replay its answer', async () => {
    const key = newKey()
    const body = productBody()
    const rows = await server.sql.count('products', acme.orgId)
    const answers = await Promise.all(Array.from({ length: 12 }, () => postProduct(acme, key, body)))
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201))
    const ids = new Set(await Promise.all(answers.map(async (a) => (await readJson(a)).id)))
    expect(ids.size).toBe(1)
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    expect(await server.sql.count('products', acme.orgId)).toBe(rows + 1)
  })

  it('commits the record and its stored answer together: when the answer cannot be kept, no record is made', async () => {
    // A trigger makes storing this key's answer fail, as a crash between the two would.
    if (onPostgres) {
      await server.sql.run(`CREATE FUNCTION refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.key LIKE 'atomic-%' AND NEW.status IS NOT NULL THEN RAISE EXCEPTION 'no room'; END IF;
          RETURN NEW;
        END $$`)
      await server.sql.run(`CREATE TRIGGER refuse_answer BEFORE INSERT OR UPDATE ON idempotency_keys
        FOR EACH ROW EXECUTE FUNCTION refuse_answer()`)
    } else {
      await server.sql.run(`CREATE TRIGGER refuse_answer_insert BEFORE INSERT ON idempotency_keys
        WHEN NEW.key LIKE 'atomic-%' AND NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'no room'); END`)
      await server.sql.run(`CREATE TRIGGER refuse_answer_update BEFORE UPDATE ON idempotency_keys
        WHEN NEW.key LIKE 'atomic-%' AND NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'no room'); END`)
    }
    const key = `atomic-${newKey()}`
    const body = productBody()
    const rows = await server.sql.count('products', acme.orgId)
    const events = await server.sql.count('events', acme.orgId)
    try {
      const failed = await postProduct(acme, key, body)
      expect(failed.status).toBe(500)
      expect(await server.sql.count('products', acme.orgId)).toBe(rows)
      expect(await server.sql.count('events', acme.orgId)).toBe(events)
    } finally {
      if (onPostgres) await server.sql.run('DROP FUNCTION refuse_answer() CASCADE')
      else {
        await server.sql.run('DROP TRIGGER refuse_answer_insert')
        await server.sql.run('DROP TRIGGER refuse_answer_update')
      }
    }
    // Nothing was left pending: the retry performs the write, once.
    const retried = await postProduct(acme, key, body)
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect(await server.sql.count('products', acme.orgId)).toBe(rows + 1)
    expect((await postProduct(acme, key, body)).headers.get('idempotent-replayed')).toBe('true')
  })

  it('checks a replay like a first request: a token of the same client without write:products gets 403', async () => {
    const key = newKey()
    const body = productBody()
    expect((await postProduct(acme, key, body)).status).toBe(201)
    const readOnly = await tokenOf(acme.clientId, acme.clientSecret, 'read:products')
    const response = await server.fetch('/api/v1/products', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${readOnly}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: JSON.stringify(body),
    })
    await expectError(response, 403, 'FORBIDDEN', ['scope'])
    expect(response.headers.get('idempotent-replayed')).toBeNull()
  })

  it('checks a replay against the role the user has now: a demoted admin gets 403, not the stored order', async () => {
    const org = await orgWithUsers(server, 'Demoted')
    const cli = await discover(server, CLI_CLIENT_ID)
    const { access_token: token } = await codeFlow(
      server,
      cli,
      'http://127.0.0.1:5000/callback',
      org.admin.email,
    )
    const send = (method: string, path: string, json: unknown, key?: string) =>
      server.fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          ...(key ? { 'Idempotency-Key': key } : {}),
        },
        body: JSON.stringify(json),
      })
    const key = newKey()
    const order = { userId: org.member.id, amount: 4200, currency: 'EUR' }
    expect((await send('POST', '/api/v1/orders', order, key)).status).toBe(201)
    expect((await send('PATCH', `/api/v1/users/${org.admin.id}`, { role: 'viewer' })).status).toBe(200)
    const replay = await send('POST', '/api/v1/orders', order, key)
    await expectError(replay, 403, 'FORBIDDEN', ['scope'])
    expect(replay.headers.get('idempotent-replayed')).toBeNull()
  })

  it('keeps no row for a request that failed', async () => {
    const key = newKey()
    await postProduct(acme, key, { ...productBody(), price: 'free' })
    expect(await keyRow(acme, key)).toBeNull()
  })

  it('frees the key of a request that failed validation, so a corrected retry creates the record', async () => {
    const key = newKey()
    const failed = await postProduct(acme, key, { ...productBody(), price: -1 })
    await expectError(failed, 422, 'VALIDATION_ERROR', ['price'])
    expect(await keyRow(acme, key)).toBeNull()
    const retried = await postProduct(acme, key, productBody())
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  it('frees the key of a request that conflicted (409 duplicate sku)', async () => {
    const taken = productBody()
    expect((await postProduct(acme, newKey(), taken)).status).toBe(201)
    const key = newKey()
    await expectError(await postProduct(acme, key, { ...productBody(), sku: taken.sku }), 409, 'CONFLICT')
    expect(await keyRow(acme, key)).toBeNull()
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
    expect(await server.sql.count('products', globex.orgId)).toBe(1)
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

  it('keeps keys per user: two users of one client sending one key and body each create their own record', async () => {
    const org = await orgWithUsers(server, 'Idempotent Users')
    const cli = await discover(server, CLI_CLIENT_ID)
    const login = (email: string) => codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)
    const [admin, member] = [await login(org.admin.email), await login(org.member.email)]
    const key = newKey()
    const post = (token: string) =>
      server.fetch('/api/v1/posts', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
        },
        body: JSON.stringify({ authorId: org.admin.id, title: 'Same key, two people' }),
      })
    const first = await post(admin.access_token)
    const second = await post(member.access_token)
    expect([first.status, second.status]).toEqual([201, 201])
    expect(second.headers.get('idempotent-replayed')).toBeNull()
    expect((await readJson(second)).id).not.toBe((await readJson(first)).id)
  })

  it('starts afresh after 24 hours', async () => {
    const key = newKey()
    const body = productBody()
    const first = await readJson(await postProduct(acme, key, body))
    const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString()
    await server.sql.run('UPDATE idempotency_keys SET created_at = ? WHERE key = ?', dayAgo, key)
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

/** A second confidential client of an organization, as a fetch with its own token. */
async function clientOf(orgId: string) {
  const { client, secret } = await server.store.clients.create({
    name: 'second client',
    orgId,
    public: false,
  })
  const access_token = await clientToken(server.url, { id: client.id, secret: secret! })
  return (path: string, init: RequestInit) =>
    server.fetch(path, {
      ...init,
      headers: { ...(init.headers as object), Authorization: `Bearer ${access_token}` },
    })
}
