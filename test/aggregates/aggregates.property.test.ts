import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../shared/errors.ts'
import { AGGREGATE_PARAMS, groupableKeys, parseAggregateParams } from '../../shared/query/aggregate-params.ts'
import { filterParams } from '../../shared/query/list-params.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createOrder, createUser, type Entity } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { groupsOf, keysOf, type Row, walkGroups } from './expected.ts'

/**
 * Random filters and groupings of random records give what counting the records in memory gives;
 * and the parameter parser, fed anything, answers a query or a 400 naming a parameter it was sent,
 * never a 500. Seeded: PROPERTY_SEED replays a run (fast-check prints the seed of a failure).
 */

const seed = Number(process.env.PROPERTY_SEED ?? 27)
const SCHEMA = exampleSchema()
const ORDERS = SCHEMA.byName('orders')!
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] as const
const TIMES = [
  '2026-02-28T23:59:59.999Z',
  '2026-03-01T00:00:00.000Z',
  '2026-03-02T00:00:00.000Z',
  '2026-03-08T23:59:59.999Z',
  '2026-12-31T23:59:59.999Z',
  '2027-01-01T00:00:00.000Z',
]

const TOKENS = [
  ...groupableKeys(ORDERS),
  ...['count', 'sum(amount)', 'avg(amount)', 'min(amount)', 'max(created_at)', 'min(status)', 'sum(status)'],
  ...[
    '-count',
    'status:desc',
    '-sum(amount)',
    'created_at:day',
    'count(*)',
    'sum()',
    'sum(amount',
    'SUM(amount)',
  ],
  ...[
    '',
    ',',
    'status,',
    ',status',
    'status,,currency',
    '__proto__',
    'constructor',
    'toString',
    'x'.repeat(300),
  ],
  ...[
    'paid',
    'paid,shipped',
    '100',
    '-1',
    '2026-03-01',
    'true',
    'abc',
    '0',
    '101',
    '\u0000',
    '💥',
    "' OR 1=1 --",
  ],
]
const value = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 4 }).map((t) => t.join(',')),
  },
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
)
const NAMES = [
  ...AGGREGATE_PARAMS,
  ...filterParams(ORDERS).map((p) => p.name),
  'fields',
  'expand',
  'filter',
  'id',
]
const params = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...NAMES) }, fc.string({ maxLength: 10 })),
      value,
    ),
    {
      maxLength: 6,
    },
  )
  .map((pairs) => new URLSearchParams(pairs))

describe('parseAggregateParams', () => {
  it('parses, or throws a 400 whose details name parameters that were sent', () => {
    fc.assert(
      fc.property(params, (sent) => {
        try {
          const { query } = parseAggregateParams(SCHEMA, ORDERS, sent)
          expect(query.aggregates.length).toBeGreaterThan(0)
          expect(query.groupBy.length).toBeLessThanOrEqual(3)
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError)
          const apiError = error as ApiError
          expect([apiError.code, apiError.status]).toEqual(['BAD_REQUEST', 400])
          expect(apiError.details.length).toBeGreaterThan(0)
          for (const detail of apiError.details) expect(sent.has(detail.field)).toBe(true)
        }
      }),
      { seed, numRuns: 500 },
    )
  })
})

describe('GET /api/v2/orders/aggregates on random records', () => {
  let server: TestServer
  let tenant: Tenant
  let users: Entity[]
  const records: Row[] = []

  beforeAll(async () => {
    server = await startTestServer()
    tenant = await server.tenant()
    users = [await createUser(tenant), await createUser(tenant), await createUser(tenant)]
    const drawn = fc.sample(
      fc.record({
        user: fc.nat(2),
        status: fc.constantFrom(...STATUSES),
        amount: fc.integer({ min: 0, max: 5000 }),
        currency: fc.constantFrom('EUR', 'USD'),
        time: fc.constantFrom(...TIMES),
      }),
      { seed, numRuns: 40 },
    )
    for (const r of drawn) {
      const order = await createOrder(tenant, {
        userId: users[r.user]!.id,
        status: r.status,
        amount: r.amount,
        currency: r.currency,
      })
      await server.sql.run('UPDATE orders SET created_at = ? WHERE id = ?', r.time, order.id)
      records.push({ ...order, createdAt: r.time })
    }
  })
  afterAll(() => server.stop())

  const query = fc.record({
    groupBy: fc.subarray(
      ['status', 'user_id', 'currency', 'created_at:day', 'created_at:week', 'created_at:month'],
      {
        maxLength: 3,
      },
    ),
    statuses: fc.option(fc.subarray([...STATUSES], { minLength: 1 })),
    amountGte: fc.option(fc.integer({ min: 0, max: 5000 })),
    amountLte: fc.option(fc.integer({ min: 0, max: 5000 })),
    currency: fc.option(fc.constantFrom('EUR', 'USD')),
    limit: fc.integer({ min: 1, max: 7 }),
  })

  it('counts, sums and bounds as the records themselves do, over every page', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        // Two timestamps of one field cannot both be keys.
        const groupBy = q.groupBy.filter(
          (k, i) =>
            !k.startsWith('created_at') || q.groupBy.findIndex((o) => o.startsWith('created_at')) === i,
        )
        const search = new URLSearchParams({
          aggregate: 'count,sum(amount),avg(amount),min(amount),max(amount)',
          limit: String(q.limit),
        })
        if (groupBy.length > 0) search.set('group_by', groupBy.join(','))
        if (q.statuses) search.set('status', q.statuses.join(','))
        if (q.amountGte !== null) search.set('amount_gte', String(q.amountGte))
        if (q.amountLte !== null) search.set('amount_lte', String(q.amountLte))
        if (q.currency) search.set('currency', q.currency)
        const kept = records.filter(
          (r) =>
            (!q.statuses || q.statuses.includes(r.status as (typeof STATUSES)[number])) &&
            (q.amountGte === null || (r.amount as number) >= q.amountGte) &&
            (q.amountLte === null || (r.amount as number) <= q.amountLte) &&
            (!q.currency || r.currency === q.currency),
        )
        const fields = { sum: ['amount'], avg: ['amount'], min: ['amount'], max: ['amount'] }
        const items = await walkGroups(tenant, `/api/v2/orders/aggregates?${search}`)
        expect(items).toEqual(groupsOf(kept, keysOf(groupBy.join(',')), fields))
      }),
      { seed, numRuns: 40 },
    )
  })

  it('answers anything with 200 or a 400 naming a parameter that was sent, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(params, async (sent) => {
        const response = await tenant.fetch(`/api/v2/orders/aggregates?${sent}`)
        expect([200, 400]).toContain(response.status)
        if (response.status === 400) {
          const body = (await response.json()) as { error: { code: string; details: { field: string }[] } }
          expect(body.error.code).toBe('BAD_REQUEST')
          for (const detail of body.error.details) expect(sent.has(detail.field)).toBe(true)
        } else await response.arrayBuffer()
      }),
      { seed, numRuns: 150 },
    )
  })
})
