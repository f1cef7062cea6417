import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { newId } from '../../shared/ids.ts'
import { PAGINATION_PARAMS } from '../../shared/query/pagination.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

interface Org {
  tenant: Tenant
  userId: string
  orderIds: Set<string>
  cursor: string
}

let server: TestServer
let acme: Org
let globex: Org

async function seedOrg(orders: number): Promise<Org> {
  const tenant = await server.tenant()
  const user = await tenant.fetch('/api/v1/users', {
    method: 'POST',
    json: { name: 'U', email: 'u@example.com' },
  })
  const { id: userId } = (await user.json()) as { id: string }
  const orderIds = new Set<string>()
  for (let i = 0; i < orders; i++) {
    const order = await tenant.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 100 + i, currency: 'EUR' },
    })
    orderIds.add(((await order.json()) as { id: string }).id)
  }
  const page = await tenant.fetch('/api/v1/orders?limit=1')
  const { pagination } = (await page.json()) as { pagination: { nextCursor: string } }
  return { tenant, userId, orderIds, cursor: pagination.nextCursor }
}

beforeAll(async () => {
  server = await startTestServer()
  acme = await seedOrg(3)
  globex = await seedOrg(2)
})
afterAll(() => server.stop())

const globexIds = () => [globex.userId, ...globex.orderIds]
const text = fc.string({ unit: 'grapheme', maxLength: 30 })

/** Values a hostile client sends: numbers of every size, ids and cursors of both organizations, text. */
const hostileValue = () =>
  fc.oneof(
    fc.integer({ min: -10, max: 200 }).map(String),
    fc.stringMatching(/^-?\d{12,400}$/),
    fc.constantFrom('', ' ', '%', '%00', '1e3', 'true', 'null', '[]', "' OR 1=1 --", '😀', 'ß'.repeat(50)),
    fc.constantFrom(acme.cursor, globex.cursor, `${acme.cursor}=`, acme.cursor.slice(0, -2)),
    fc.constantFrom(...acme.orderIds, ...globex.orderIds, acme.userId, globex.userId),
    text,
  )
const paramName = fc.oneof(
  fc.constantFrom(...PAGINATION_PARAMS),
  fc.constantFrom('status', 'amount_gte', 'sort', 'q', 'filter', 'org_id', 'orgId', 'user_id', '__proto__'),
  text,
)

describe('GET /api/v1/orders with hostile query strings', () => {
  it("never fails with 500 and never returns another organization's order", async () => {
    const query = fc.oneof(
      fc
        .array(fc.tuple(paramName, hostileValue()), { maxLength: 5 })
        .map((pairs) => new URLSearchParams(pairs).toString()),
      fc
        .array(fc.tuple(paramName, hostileValue()), { maxLength: 4 })
        .map((pairs) => pairs.map((p) => p.join('=')).join('&')),
    )
    await fc.assert(
      fc.asyncProperty(query, async (qs) => {
        const response = await acme.tenant.fetch(`/api/v1/orders?${qs}`)
        const body = await response.text()
        expect(response.status).toBeLessThan(500)
        if (response.status === 200) {
          const { data } = JSON.parse(body) as { data: { id: string }[] }
          for (const order of data) expect(acme.orderIds.has(order.id)).toBe(true)
          // Only what the client itself sent may be echoed (in `filters`, say).
          for (const id of globexIds()) if (!qs.includes(id)) expect(body).not.toContain(id)
        } else {
          expect(response.status).toBe(400)
          const { error } = JSON.parse(body) as { error: { code: string; details: { field: string }[] } }
          expect(error.code).toBe('BAD_REQUEST')
          const sent = new URL(response.url).searchParams
          for (const detail of error.details) expect(sent.has(detail.field)).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })
})

describe('GET /api/v1/orders/{id} with hostile ids', () => {
  it("answers 200 only for the caller's orders, 403 for another organization's, never 500", async () => {
    const mutated = fc
      .tuple(
        fc.constantFrom(...acme.orderIds, ...globex.orderIds),
        fc.nat(),
        fc.constantFrom('0', 'z', 'Z', 'i', '_'),
      )
      .map(([id, at, c]) => id.slice(0, at % id.length) + c + id.slice((at % id.length) + 1))
    const segment = fc
      .oneof(
        fc.constantFrom(...acme.orderIds, ...globex.orderIds, acme.userId, newId('ord')),
        mutated,
        text,
        fc.stringMatching(/^ord_[0-9a-z]{26}$/),
      )
      // '' and '.' name the collection itself once the URL is normalized.
      .filter((id) => id !== '' && id !== '.')
    await fc.assert(
      fc.asyncProperty(segment, async (id) => {
        const response = await acme.tenant.fetch(`/api/v1/orders/${encodeURIComponent(id)}`)
        const body = await response.text()
        expect(response.status).toBeLessThan(500)
        if (acme.orderIds.has(id)) expect(response.status).toBe(200)
        else if (globex.orderIds.has(id)) expect(response.status).toBe(403)
        else expect(response.status).toBe(404)
        // An error never carries the record it refused.
        if (response.status !== 200) expect(body).not.toContain('"amount"')
      }),
      { numRuns: 200 },
    )
  })
})

describe('POST /api/v1/orders with random JSON bodies', () => {
  const prototypeKey = fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'id',
    'orgId',
    'createdAt',
  )
  const orderish = () =>
    fc
      .record(
        {
          userId: fc.oneof(
            fc.constantFrom(acme.userId, globex.userId, newId('usr'), ...globex.orderIds),
            fc.jsonValue(),
          ),
          status: fc.oneof(fc.constantFrom('pending', 'paid', 'refunded'), fc.jsonValue()),
          amount: fc.oneof(
            fc.integer({ min: -5, max: 10_000 }),
            fc.double(),
            fc.constant(2 ** 60),
            fc.jsonValue(),
          ),
          currency: fc.oneof(fc.constantFrom('EUR', 'USD', 'eur', 'XXXX'), fc.jsonValue()),
          extra: fc.dictionary(fc.oneof(prototypeKey, text), fc.jsonValue(), { maxKeys: 2 }),
        },
        { requiredKeys: ['userId', 'currency', 'extra'] },
      )
      .map(({ extra, ...fields }) => JSON.stringify({ ...extra, ...fields }))
  const bodies = () =>
    fc.oneof(
      { weight: 3, arbitrary: orderish() },
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom(
        '',
        '{',
        '{"a":',
        '[1,2',
        'null',
        '{"amount": 1e999}',
        `{"userId": "${'x'.repeat(5000)}"}`,
      ),
    )
  const contentType = fc.oneof(
    { weight: 5, arbitrary: fc.constant('application/json') },
    fc.constantFrom(
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
    ),
  )

  it("never fails with 500, and creates orders only for the caller's own user", async () => {
    await fc.assert(
      fc.asyncProperty(bodies(), contentType, async (body, type) => {
        const response = await acme.tenant.fetch('/api/v1/orders', {
          method: 'POST',
          headers: { 'Content-Type': type },
          body,
        })
        const text = await response.text()
        expect([201, 400, 409, 415, 422]).toContain(response.status)
        if (response.status === 201) {
          const order = JSON.parse(text) as { id: string; userId: string }
          expect(order.userId).toBe(acme.userId)
          acme.orderIds.add(order.id)
        } else {
          const { error } = JSON.parse(text) as { error: { code: string; details: unknown[] } }
          expect(error.code).not.toBe('INTERNAL')
          expect(Array.isArray(error.details)).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('answers 400 naming the member for any body that repeats one, with or without Idempotency-Key, creating nothing', async () => {
    const member = fc.constantFrom('userId', 'amount', 'currency', 'status')
    const spelled = (name: string, escaped: boolean) =>
      escaped
        ? `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
        : `"${name}"`
    await fc.assert(
      fc.asyncProperty(
        member,
        fc.jsonValue(),
        fc.boolean(),
        fc.boolean(),
        async (name, second, escaped, keyed) => {
          const first = JSON.stringify({ userId: acme.userId, amount: 100, currency: 'EUR', status: 'paid' })
          const body = `${first.slice(0, -1)},${spelled(name, escaped)}:${JSON.stringify(second)}}`
          const before = acme.orderIds.size
          const response = await acme.tenant.fetch('/api/v1/orders', {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              ...(keyed ? { 'Idempotency-Key': `dup-${name}-${escaped}` } : {}),
            },
            body,
          })
          expect(response.status).toBe(400)
          const { error } = (await response.json()) as {
            error: { code: string; details: { field: string }[] }
          }
          expect(error.code).toBe('BAD_REQUEST')
          expect(error.details.map((d) => d.field)).toEqual([name])
          expect(acme.orderIds.size).toBe(before)
        },
      ),
      { numRuns: 60 },
    )
    const listed = await acme.tenant.fetch('/api/v1/orders?limit=100')
    const { data } = (await listed.json()) as { data: { id: string }[] }
    expect(new Set(data.map((o) => o.id))).toEqual(acme.orderIds)
  })

  it("leaves the other organization's orders exactly as they were", async () => {
    const response = await globex.tenant.fetch('/api/v1/orders?limit=100')
    const { data } = (await response.json()) as { data: { id: string; userId: string }[] }
    expect(new Set(data.map((o) => o.id))).toEqual(globex.orderIds)
    expect(data.every((o) => o.userId === globex.userId)).toBe(true)
  })
})
