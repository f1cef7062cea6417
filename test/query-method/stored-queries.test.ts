import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { create, type Entity, expectError, readJson } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientOf, FORM, ids, JSON_TYPE, JSONPATH, type Page, query, SQL, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant
let other: Tenant
let userId: string
let orders: Entity[]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  other = await server.tenant()
  const seeded = await seedOrders(acme)
  userId = seeded.userId
  orders = seeded.orders
})
afterAll(() => server.stop())

const STORED = /^\/api\/v1\/queries\/qry_[0-7][0-9a-hjkmnp-tv-z]{25}$/
const RESULT = /^\/api\/v1\/queries\/qry_[0-7][0-9a-hjkmnp-tv-z]{25}\/results\/[A-Za-z0-9_-]{43}$/
const SQL_BODY = "SELECT id, status FROM orders WHERE status = 'paid' ORDER BY amount DESC"

describe('QUERY answers Location (stored query) and Content-Location (stored result)', () => {
  const bodies: [string, string][] = [
    [FORM, 'status=paid&sort=-amount'],
    [JSON_TYPE, '{"status": "paid", "sort": "-amount"}'],
    [SQL, SQL_BODY],
    [JSONPATH, "$[?@.status == 'paid']"],
  ]
  for (const [type, body] of bodies) {
    it(`${type}: both are unguessable paths that never carry the query text`, async () => {
      const response = await query(acme, '/api/v1/orders', type, body)
      expect(response.status).toBe(200)
      const location = response.headers.get('location')!
      const contentLocation = response.headers.get('content-location')!
      expect(location).toMatch(STORED)
      expect(contentLocation).toMatch(RESULT)
      expect(contentLocation.startsWith(`${location}/results/`)).toBe(true)
      for (const word of ['paid', 'status', 'amount'])
        expect(`${location}${contentLocation}`).not.toContain(word)
    })
  }

  it('reuses one stored query for the same body and target, and a new one for another body', async () => {
    const a = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('location')
    const b = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('location')
    const c = (await query(acme, '/api/v1/orders', SQL, `${SQL_BODY} LIMIT 1`)).headers.get('location')
    expect(a).toBe(b!)
    expect(c).not.toBe(a!)
  })

  it('gives each response its own result token', async () => {
    const a = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('content-location')
    const b = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('content-location')
    expect(a).not.toBe(b!)
  })

  it('stores nothing for a QUERY that fails', async () => {
    const before = ((await server.sql.get('SELECT count(*) AS n FROM stored_queries')) as { n: number }).n
    expect((await query(acme, '/api/v1/orders', SQL, 'SELECT * FROM users')).status).toBe(422)
    const limited = await server.tenant({ scope: ['read:users'] })
    expect((await query(limited, '/api/v1/orders', SQL, 'SELECT * FROM orders')).status).toBe(403)
    expect(((await server.sql.get('SELECT count(*) AS n FROM stored_queries')) as { n: number }).n).toBe(
      before,
    )
  })
})

describe('GET /api/v1/queries/{id}', () => {
  it('runs the stored query again, seeing records created since', async () => {
    const response = await query(acme, '/api/v1/orders', SQL, SQL_BODY)
    const first = await readJson<Page>(response)
    const location = response.headers.get('location')!
    const added = await create(acme, '/api/v1/orders', {
      userId,
      status: 'paid',
      amount: 99_999,
      currency: 'EUR',
    })
    const rerun = await acme.fetch(location)
    expect(rerun.status).toBe(200)
    const page = await readJson<Page>(rerun)
    expect(ids(page)).toEqual([added.id, ...ids(first)])
    expect(Object.keys(page.data[0]!)).toEqual(['id', 'status'])
    expect(rerun.headers.get('etag')).toMatch(/^"/)
    expect(
      (await acme.fetch(location, { headers: { 'If-None-Match': rerun.headers.get('etag')! } })).status,
    ).toBe(304)
  })

  it("runs with the caller's rights: a client of the organization without the scope gets 403", async () => {
    const location = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('location')!
    const usersOnly = await clientOf(server, acme.orgId, ['read:users'])
    await expectError(await usersOnly.fetch(location), 403, 'FORBIDDEN', ['scope'])
    const reader = await clientOf(server, acme.orgId, ['read:orders'])
    expect((await reader.fetch(location)).status).toBe(200)
  })

  it('403 from another organization', async () => {
    const location = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('location')!
    await expectError(await other.fetch(location), 403, 'FORBIDDEN')
  })

  it('404 for an unknown or malformed id', async () => {
    await expectError(await acme.fetch('/api/v1/queries/qry_01jd3v0m7qf8s9t2w4x6y8z0ab'), 404, 'NOT_FOUND')
    await expectError(await acme.fetch('/api/v1/queries/nope'), 404, 'NOT_FOUND')
  })

  it('takes only cursor or after, and 405 for QUERY with Allow', async () => {
    const location = (await query(acme, '/api/v1/orders', FORM, 'status=paid')).headers.get('location')!
    await expectError(await acme.fetch(`${location}?status=shipped`), 400, 'BAD_REQUEST', ['status'])
    const response = await query(acme, location, FORM, '')
    await expectError(response, 405, 'METHOD_NOT_ALLOWED')
    expect(response.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS')
  })
})

describe('DELETE /api/v1/queries/{id}', () => {
  it('removes the stored query and its results; 403 from another organization', async () => {
    const response = await query(acme, '/api/v1/orders', JSONPATH, '$[?@.amount > 100]')
    const location = response.headers.get('location')!
    const result = response.headers.get('content-location')!
    await expectError(await other.fetch(location, { method: 'DELETE' }), 403, 'FORBIDDEN')
    const deleted = await acme.fetch(location, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    await expectError(await acme.fetch(location), 404, 'NOT_FOUND')
    await expectError(await acme.fetch(result), 404, 'NOT_FOUND')
  })
})

describe('GET on a stored result (Content-Location)', () => {
  it('returns exactly the response the QUERY gave, even after the data changed', async () => {
    const response = await query(acme, '/api/v1/orders', SQL, SQL_BODY)
    const text = await response.text()
    const resultPath = response.headers.get('content-location')!
    await create(acme, '/api/v1/orders', { userId, status: 'paid', amount: 5, currency: 'EUR' })
    const stored = await acme.fetch(resultPath)
    expect(stored.status).toBe(200)
    expect(await stored.text()).toBe(text)
    for (const header of ['content-type', 'etag', 'last-modified', 'location'])
      expect({ header, value: stored.headers.get(header) }).toEqual({
        header,
        value: response.headers.get(header),
      })
    expect(stored.headers.get('content-location')).toBe(resultPath)
    expect(stored.headers.get('cache-control')).toMatch(/^private, max-age=(59\d|600)$/)
    const conditional = await acme.fetch(resultPath, {
      headers: { 'If-None-Match': response.headers.get('etag')! },
    })
    expect(conditional.status).toBe(304)
  })

  it('is gone after its lifetime (10 minutes), and 403 from another organization', async () => {
    const resultPath = (await query(acme, '/api/v1/orders', FORM, 'status=paid')).headers.get(
      'content-location',
    )!
    await expectError(await other.fetch(resultPath), 403, 'FORBIDDEN')
    await server.sql.run("UPDATE query_results SET expires_at = '2000-01-01T00:00:00.000Z'")
    await expectError(await acme.fetch(resultPath), 404, 'NOT_FOUND')
  })

  it('403 for a client of the organization that may not read the collection', async () => {
    const resultPath = (await query(acme, '/api/v1/orders', SQL, SQL_BODY)).headers.get('content-location')!
    const usersOnly = await clientOf(server, acme.orgId, ['read:users'])
    await expectError(await usersOnly.fetch(resultPath), 403, 'FORBIDDEN', ['scope'])
  })

  it('404 for a token that was never issued, or one from another stored query', async () => {
    const a = await query(acme, '/api/v1/orders', FORM, 'status=shipped')
    const b = await query(acme, '/api/v1/orders', FORM, 'status=pending')
    const token = a.headers.get('content-location')!.split('/').at(-1)
    await expectError(await acme.fetch(`${b.headers.get('location')}/results/${token}`), 404, 'NOT_FOUND')
    await expectError(
      await acme.fetch(`${a.headers.get('location')}/results/${'A'.repeat(43)}`),
      404,
      'NOT_FOUND',
    )
  })

  it('keeps the token itself out of the database (only its hash)', async () => {
    const token = (await query(acme, '/api/v1/orders', FORM, 'limit=1')).headers
      .get('content-location')!
      .split('/')
      .at(-1)!
    const rows = (await server.sql.all('SELECT token_hash FROM query_results')) as { token_hash: string }[]
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.some((r) => r.token_hash === token)).toBe(false)
    expect(orders.length).toBeGreaterThan(0)
  })
})
