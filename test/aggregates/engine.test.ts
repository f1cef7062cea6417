import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Principal } from '../../server/auth/tokens.ts'
import { aggregateGroups } from '../../server/resources/aggregates.ts'
import type { EngineContext } from '../../server/resources/context.ts'
import { CursorCodec } from '../../server/resources/cursor.ts'
import type { AggregateQuery } from '../../shared/query/aggregate-types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createOrder, createUser } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * `aggregateGroups`, the engine function every front door of aggregates runs (REST, QUERY bodies,
 * SQL bodies' GROUP BY and HAVING, GraphQL): what it gives back besides what REST shows.
 */

const SCHEMA = exampleSchema()
const ORDERS = SCHEMA.byName('orders')!
let server: TestServer
let t: Tenant
let engine: EngineContext
/** Orders by status: paid 4 (amounts 100..400), pending 2 (1000 each), shipped 1 (5). */
const SEED: [string, number][] = [
  ['paid', 100],
  ['paid', 200],
  ['paid', 300],
  ['paid', 400],
  ['pending', 1000],
  ['pending', 1000],
  ['shipped', 5],
]

const principal = (scopes: string[]): Principal => ({
  kind: 'client',
  subject: 'clt_test',
  orgId: t.orgId,
  clientId: 'clt_test',
  scopes: new Set(scopes),
  expiresAt: Number.MAX_SAFE_INTEGER,
})

const query = (extra: Partial<AggregateQuery>): AggregateQuery => ({
  where: [],
  groupBy: [{ field: 'status' }],
  aggregates: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
  sort: [{ kind: 'group', index: 0, descending: false }],
  page: { style: 'cursor', limit: 20 },
  includeTotal: false,
  ...extra,
})

beforeAll(async () => {
  server = await startTestServer()
  t = await server.tenant()
  const user = await createUser(t)
  for (const [status, amount] of SEED) await createOrder(t, { userId: user.id, status, amount })
  engine = {
    schema: SCHEMA,
    store: server.store,
    clock: Date.now,
    cursors: new CursorCodec(crypto.getRandomValues(new Uint8Array(32))),
  }
})
afterAll(() => server.stop())

describe('aggregateGroups', () => {
  it('answers each group as its key and its values in the order asked', async () => {
    const { groups, pagination, lastModified } = await aggregateGroups(engine, principal(['read:orders']), {
      resource: ORDERS,
      query: query({}),
    })
    expect(groups).toEqual([
      { key: { status: 'paid' }, values: [4, 1000] },
      { key: { status: 'pending' }, values: [2, 2000] },
      { key: { status: 'shipped' }, values: [1, 5] },
    ])
    expect(pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null })
    expect(Date.parse(lastModified)).toBeGreaterThan(0)
  })

  const havings: [string, AggregateQuery['having'], string[]][] = [
    ['count > 1', { kind: 'compare', aggregate: { fn: 'count' }, op: 'gt', value: 1 }, ['paid', 'pending']],
    [
      'sum(amount) >= 1000 and count = 2',
      {
        kind: 'and',
        conditions: [
          { kind: 'compare', aggregate: { fn: 'sum', field: 'amount' }, op: 'gte', value: 1000 },
          { kind: 'compare', aggregate: { fn: 'count' }, op: 'eq', value: 2 },
        ],
      },
      ['pending'],
    ],
    [
      'not (max(amount) < 500) or min(amount) = 5',
      {
        kind: 'or',
        conditions: [
          {
            kind: 'not',
            condition: { kind: 'compare', aggregate: { fn: 'max', field: 'amount' }, op: 'lt', value: 500 },
          },
          { kind: 'compare', aggregate: { fn: 'min', field: 'amount' }, op: 'eq', value: 5 },
        ],
      },
      ['pending', 'shipped'],
    ],
    [
      'avg(amount) != 250',
      { kind: 'compare', aggregate: { fn: 'avg', field: 'amount' }, op: 'ne', value: 250 },
      ['pending', 'shipped'],
    ],
  ]
  for (const [name, having, statuses] of havings) {
    it(`keeps the groups HAVING ${name} keeps, counting them with include_total`, async () => {
      const { groups, pagination } = await aggregateGroups(engine, principal(['read:orders']), {
        resource: ORDERS,
        query: query({ having, includeTotal: true }),
      })
      expect(groups.map((g) => g.key.status)).toEqual(statuses)
      expect(pagination.total).toBe(statuses.length)
    })
  }

  it('orders by an aggregate it does not show, and pages by cursor on it', async () => {
    const asked = query({
      aggregates: [{ fn: 'count' }],
      sort: [{ kind: 'aggregate', aggregate: { fn: 'max', field: 'amount' }, descending: true }],
      page: { style: 'cursor', limit: 2 },
    })
    const first = await aggregateGroups(engine, principal(['read:orders']), {
      resource: ORDERS,
      query: asked,
    })
    expect(first.groups).toEqual([
      { key: { status: 'pending' }, values: [2] },
      { key: { status: 'paid' }, values: [4] },
    ])
    const cursor = first.pagination.nextCursor!
    const second = await aggregateGroups(engine, principal(['read:orders']), {
      resource: ORDERS,
      query: { ...asked, page: { style: 'cursor', limit: 2, cursor } },
    })
    expect(second.groups).toEqual([{ key: { status: 'shipped' }, values: [1] }])
    expect(second.pagination.hasMore).toBe(false)
  })

  it('counts no event of a collection the principal may not read', async () => {
    const events = SCHEMA.byName('events')!
    const ask = (scopes: string[]) =>
      aggregateGroups(engine, principal(scopes), {
        resource: events,
        query: query({ groupBy: [{ field: 'resource' }], aggregates: [{ fn: 'count' }] }),
      })
    expect((await ask(['read:events', 'read:orders', 'read:users'])).groups).toEqual([
      { key: { resource: 'orders' }, values: [7] },
      { key: { resource: 'users' }, values: [1] },
    ])
    expect((await ask(['read:events', 'read:orders'])).groups).toEqual([
      { key: { resource: 'orders' }, values: [7] },
    ])
    expect((await ask(['read:events'])).groups).toEqual([])
    await expect(ask(['read:orders'])).rejects.toMatchObject({ status: 403 })
  })
})
