import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { parseListParams } from '../../shared/query/list-params.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createOrder, createProduct, createUser, type Entity, readJson } from '../rest/fixtures.ts'
import { example } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectBadParam, followNext, ids, list, newestFirst, sortedBy } from './helpers.ts'

const ordersResource = example('orders')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let users: Entity[]
let orders: Entity[]
let products: Entity[]
let events: Entity[]

const ORDERS: [user: number, status: string, amount: number, currency: string][] = [
  [0, 'pending', 100, 'EUR'],
  [0, 'paid', 200, 'EUR'],
  [1, 'paid', 300, 'USD'],
  [1, 'shipped', 400, 'EUR'],
  [2, 'delivered', 500, 'USD'],
  [0, 'cancelled', 600, 'EUR'],
  [1, 'paid', 200, 'USD'],
  [2, 'pending', 700, 'EUR'],
]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  users = []
  for (const role of ['admin', 'member', 'viewer'])
    users.push(await createUser(acme, { role, email: `${role}@filters.example` }))
  orders = []
  for (const [user, status, amount, currency] of ORDERS) {
    orders.push(await createOrder(acme, { userId: users[user]!.id, status, amount, currency }))
    // Each order in its own millisecond, so that every date bound below splits the list.
    await Bun.sleep(2)
  }
  products = []
  for (const [active, price, currency] of [
    [true, 100, 'EUR'],
    [false, 200, 'EUR'],
    [true, 300, 'USD'],
    [false, 400, 'EUR'],
  ])
    products.push(await createProduct(acme, { active, price, currency }))
  await Bun.sleep(5)
  const patched = await acme.fetch(`/api/v1/orders/${orders[2]!.id}`, {
    method: 'PATCH',
    json: { status: 'shipped' },
  })
  expect(patched.status).toBe(200)
  orders[2] = await readJson(patched)
  events = (await list(acme, '/api/v1/events?limit=100')).data
  // Creating another organization's twins makes leaks visible in every filter below.
  const other = await server.tenant()
  const stranger = await createUser(other, { role: 'admin' })
  await createOrder(other, { userId: stranger.id, status: 'paid', amount: 200, currency: 'EUR' })
  await createProduct(other, { active: false, price: 200 })
})
afterAll(() => server.stop())

/** The same instant written with a +02:00 offset. */
const plusTwoHours = (iso: string) =>
  new Date(Date.parse(iso) + 7_200_000).toISOString().replace('Z', '+02:00')

function fill(query: string): string {
  const fixtures: Record<string, Entity[]> = { users, orders, products }
  return query.replace(
    /\{(\w+)\.(\d+)\.(\w+)(?:\|([^}]+))?\}/g,
    (_, name: string, i: string, field: string, form?: string) => {
      const value = String(fixtures[name]![Number(i)]![field])
      if (form === '+02:00') return encodeURIComponent(plusTwoHours(value))
      if (form === 'no offset') return value.replace('Z', '')
      return value
    },
  )
}

type Match = (record: Entity) => boolean
type Lazy<T> = T | (() => T)
const now = <T>(value: Lazy<T>): T => (typeof value === 'function' ? (value as () => T)() : value)
const is =
  (field: string, ...values: Lazy<unknown>[]): Match =>
  (r) =>
    values.map(now).includes(r[field])
const isNot =
  (field: string, value: Lazy<unknown>): Match =>
  (r) =>
    r[field] !== now(value)
const atLeast =
  (field: string, n: number): Match =>
  (r) =>
    (r[field] as number) >= n
const atMost =
  (field: string, n: number): Match =>
  (r) =>
    (r[field] as number) <= n
const after =
  (field: string, t: Lazy<unknown>): Match =>
  (r) =>
    (r[field] as string) > (now(t) as string)
const before =
  (field: string, t: Lazy<unknown>): Match =>
  (r) =>
    (r[field] as string) < (now(t) as string)
const every =
  (...matches: Match[]): Match =>
  (r) =>
    matches.every((m) => m(r))
const userId = (i: number) => () => users[i]!.id
const at =
  (i: number, field = 'createdAt') =>
  () =>
    orders[i]![field]

/** Each filter: the query, which local records must come back, and the `filters` echo. */
interface FilterCase {
  path: string
  /** `{orders.3.createdAt}` stands for that fixture's value, filled in when the test runs. */
  query: string
  match: Match
  echo: Lazy<Record<string, unknown>>
  all: () => Entity[]
}

const on =
  (path: string, all: () => Entity[]) =>
  (query: string, match: Match, echo: FilterCase['echo']): FilterCase => ({ path, query, match, echo, all })
const order = on('/api/v1/orders', () => orders)
const product = on('/api/v1/products', () => products)
const user = on('/api/v1/users', () => users)
const event = on('/api/v1/events', () => events)

// biome-ignore format: one case per line reads as a table
const cases: FilterCase[] = [
  order('status=paid', is('status', 'paid'), { status: 'paid' }),
  order('status=paid,shipped', is('status', 'paid', 'shipped'), { status: ['paid', 'shipped'] }),
  order('amount=200', is('amount', 200), { amount: 200 }),
  order('amount_gte=300', atLeast('amount', 300), { amount_gte: 300 }),
  order('amount_lte=300', atMost('amount', 300), { amount_lte: 300 }),
  order('amount_gte=200&amount_lte=400', every(atLeast('amount', 200), atMost('amount', 400)), { amount_gte: 200, amount_lte: 400 }),
  order('currency=USD', is('currency', 'USD'), { currency: 'USD' }),
  order('user_id={users.0.id}', is('userId', userId(0)), () => ({ user_id: userId(0)() })),
  order('user_id={users.0.id},{users.2.id}', is('userId', userId(0), userId(2)), () => ({ user_id: [userId(0)(), userId(2)()] })),
  order('status=paid&currency=USD&amount_lte=250', every(is('status', 'paid'), is('currency', 'USD'), atMost('amount', 250)), { status: 'paid', currency: 'USD', amount_lte: 250 }),
  order('created_after={orders.3.createdAt}', after('createdAt', at(3)), () => ({ created_after: at(3)() })),
  order('created_before={orders.3.createdAt}', before('createdAt', at(3)), () => ({ created_before: at(3)() })),
  order('created_after={orders.1.createdAt}&created_before={orders.5.createdAt}', every(after('createdAt', at(1)), before('createdAt', at(5))), () => ({ created_after: at(1)(), created_before: at(5)() })),
  order('created_after={orders.3.createdAt|+02:00}', after('createdAt', at(3)), () => ({ created_after: at(3)() })),
  order('created_after={orders.3.createdAt|no offset}', after('createdAt', at(3)), () => ({ created_after: at(3)() })),
  order('created_after=2000-01-01', () => true, { created_after: '2000-01-01T00:00:00.000Z' }),
  order('created_before=2000-01-01', () => false, { created_before: '2000-01-01T00:00:00.000Z' }),
  order('updated_after={orders.7.createdAt}', is('id', at(2, 'id')), () => ({ updated_after: at(7)() })),
  order('updated_before={orders.2.updatedAt}', isNot('id', at(2, 'id')), () => ({ updated_before: at(2, 'updatedAt')() })),
  product('active=true', is('active', true), { active: true }),
  product('active=false', is('active', false), { active: false }),
  product('price_gte=200&active=false', every(atLeast('price', 200), is('active', false)), { price_gte: 200, active: false }),
  product('currency=USD', is('currency', 'USD'), { currency: 'USD' }),
  product('sku={products.1.sku}', is('id', () => products[1]!.id), () => ({ sku: products[1]!.sku })),
  user('role=admin', is('role', 'admin'), { role: 'admin' }),
  user('role=admin,viewer', is('role', 'admin', 'viewer'), { role: ['admin', 'viewer'] }),
  user('email=member@filters.example', is('role', 'member'), { email: 'member@filters.example' }),
  // Emails are unique case-insensitively (docs/api.md), and equality follows the column.
  user('email=MEMBER@Filters.Example', is('role', 'member'), { email: 'MEMBER@Filters.Example' }),
  event('type=order.created', is('type', 'order.created'), { type: 'order.created' }),
  event('type=order.updated', is('type', 'order.updated'), { type: 'order.updated' }),
  event('resource=products', is('resource', 'products'), { resource: 'products' }),
  event('resource_id={orders.2.id}', is('resourceId', at(2, 'id')), () => ({ resource_id: at(2, 'id')() })),
  event('type=user.created&resource=users', is('type', 'user.created'), { type: 'user.created', resource: 'users' }),
]

describe('GET /api/v1/{collection} with filters', () => {
  for (const c of cases) {
    it(`answers ${c.path}?${c.query} with exactly the matching records and echoes the filters`, async () => {
      const body = await list(acme, `${c.path}?${fill(c.query)}&limit=100`)
      const expected = newestFirst(c.all().filter(c.match))
      expect(ids(body.data)).toEqual(ids(expected))
      expect(body.filters).toEqual(now(c.echo))
    })
  }

  it('finds something for every case above that expects a match (the fixtures are not vacuous)', () => {
    const empty = cases.filter((c) => c.all().filter(c.match).length === 0).map((c) => c.query)
    expect(empty).toEqual(['created_before=2000-01-01'])
    expect(events.filter((e) => e.type === 'order.updated')).toHaveLength(1)
  })

  it('answers without a filters object when no filter is given', async () => {
    const body = await list(acme, '/api/v1/orders?limit=2&sort=amount')
    expect(body).not.toHaveProperty('filters')
  })
})

describe('GET /api/v1/{collection} with bad filters', () => {
  const bad: [path: string, fields: string[]][] = [
    ['/api/v1/orders?colour=red', ['colour']],
    ['/api/v1/orders?org_id=org_01jd3v0m7qf8s9t2w4x6y8z0ab', ['org_id']],
    ['/api/v1/orders?orgId=x', ['orgId']],
    ['/api/v1/orders?id=ord_01jd3v0m7qf8s9t2w4x6y8z0ab', ['id']],
    ['/api/v1/orders?status=lost', ['status']],
    ['/api/v1/orders?status=paid,lost', ['status']],
    ['/api/v1/orders?status=PAID', ['status']],
    ['/api/v1/orders?status=', ['status']],
    ['/api/v1/orders?amount=abc', ['amount']],
    ['/api/v1/orders?amount_gte=1.5', ['amount_gte']],
    ['/api/v1/orders?amount_lte=1e3', ['amount_lte']],
    ['/api/v1/orders?amount_gte=99999999999999999', ['amount_gte']],
    ['/api/v1/orders?amount_gt=5', ['amount_gt']],
    ['/api/v1/orders?currency_gte=EUR', ['currency_gte']],
    ['/api/v1/orders?created_at=2024-01-01', ['created_at']],
    ['/api/v1/orders?created_after=yesterday', ['created_after']],
    ['/api/v1/orders?created_after=1700000000', ['created_after']],
    ['/api/v1/orders?created_after=2024-13-01', ['created_after']],
    ['/api/v1/orders?created_after=2023-02-29', ['created_after']],
    ['/api/v1/orders?created_before=2024-04-31T10:00:00Z', ['created_before']],
    ['/api/v1/orders?created_before=2024-01-01T25:00:00Z', ['created_before']],
    ['/api/v1/orders?updated_after=2024-01-01T10:00:00%2B25:00', ['updated_after']],
    ['/api/v1/orders?status=paid&status=shipped', ['status']],
    ['/api/v1/orders?active=true', ['active']],
    ['/api/v1/orders?status=lost&amount_gte=x', ['status', 'amount_gte']],
    ['/api/v1/products?active=yes', ['active']],
    ['/api/v1/products?active=1', ['active']],
    ['/api/v1/products?active=TRUE', ['active']],
    ['/api/v1/users?role=owner', ['role']],
    ['/api/v1/users?email=a@x.example&email=b@x.example', ['email']],
    ['/api/v1/events?type=order.created&type=order.updated', ['type']],
    ['/api/v1/events?data=x', ['data']],
  ]
  for (const [path, fields] of bad) {
    it(`rejects ${path} with 400 and a detail naming ${fields.join(', ')}`, async () => {
      await expectBadParam(await acme.fetch(path), ...fields)
    })
  }

  it('accepts 2024-02-29, a day that leap year has (the control for 2023-02-29)', async () => {
    const body = await list(acme, '/api/v1/orders?created_after=2024-02-29')
    expect(body.filters).toEqual({ created_after: '2024-02-29T00:00:00.000Z' })
  })
})

describe('filters with pagination and sort', () => {
  const paid = () =>
    sortedBy(
      orders.filter((r) => r.status === 'paid'),
      [{ field: 'amount', descending: true }],
    )

  it('keeps the filter and the sort on every next page (cursor style)', async () => {
    const first = await list(acme, '/api/v1/orders?status=paid&sort=-amount&limit=1')
    expect(first.filters).toEqual({ status: 'paid' })
    const next = new URL(first.pagination.next!, server.url).searchParams
    expect([next.get('status'), next.get('sort'), next.get('limit')]).toEqual(['paid', '-amount', '1'])
    const { items } = await followNext(acme, '/api/v1/orders?status=paid&sort=-amount&limit=1')
    expect(ids(items)).toEqual(ids(paid()))
  })

  it('counts only matching records in page style with include_total', async () => {
    const body = await list(
      acme,
      '/api/v1/orders?status=paid&sort=-amount&page=2&per_page=1&include_total=true',
    )
    expect(body.pagination).toEqual({
      page: 2,
      limit: 1,
      total: paid().length,
      totalPages: paid().length,
      hasMore: false,
    })
    expect(ids(body.data)).toEqual(ids(paid().slice(1, 2)))
  })

  it('continues after a record in keyset style within the filter', async () => {
    const eur = sortedBy(
      orders.filter((r) => r.currency === 'EUR'),
      [{ field: 'amount', descending: false }],
    )
    const body = await list(acme, `/api/v1/orders?currency=EUR&sort=amount&after=${eur[1]!.id}&limit=2`)
    expect(ids(body.data)).toEqual(ids(eur.slice(2, 4)))
    expect(body.filters).toEqual({ currency: 'EUR' })
  })
})

describe('parseListParams', () => {
  it('reads a date-time without offset as UTC, whatever the server time zone', () => {
    const saved = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      const { filters } = parseListParams(
        SCHEMA,
        ordersResource,
        new URLSearchParams('created_after=2024-01-01T10:00'),
      )
      expect(filters).toEqual({ created_after: '2024-01-01T10:00:00.000Z' })
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })
})
