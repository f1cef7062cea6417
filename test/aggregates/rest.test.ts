import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { clientOf } from '../query-method/support.ts'
import { expectBadParam, nextSecond } from '../reads/helpers.ts'
import { create, createOrder, createProduct, createUser, type Entity } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { compareValues, groupsOf, keysOf, type Row, walkGroups } from './expected.ts'

/**
 * `GET /api/v2/{collection}/aggregates` on the example (docs/bulk.md, "Aggregates"): every answer
 * is checked against the same groups worked out in memory from the records.
 */

let server: TestServer
let acme: Tenant
let globex: Tenant
let orders: Row[]
let users: Entity[]

/** Instants on either side of UTC day, ISO week (Monday), month and year boundaries. */
const TIMES = [
  '2026-02-28T12:00:00.000Z', // Saturday: week of Monday 02-23, February
  '2026-02-28T23:59:59.999Z',
  '2026-03-01T00:00:00.000Z', // Sunday: still the week of 02-23, March
  '2026-03-01T23:59:59.999Z',
  '2026-03-02T00:00:00.000Z', // Monday: a new week
  '2026-12-31T23:59:59.999Z', // Thursday: week of Monday 12-28
  '2027-01-01T00:00:00.000Z', // Friday: the same week, another year and month
]
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']
const ALL = 'aggregate=count,sum(amount),avg(amount),min(amount),max(amount)'
const ALL_FIELDS = { sum: ['amount'], avg: ['amount'], min: ['amount'], max: ['amount'] }

const get = (t: Tenant, path: string, init?: RequestInit) => t.fetch(path, init)
async function body(t: Tenant, path: string): Promise<{ data: Row[]; pagination: Row; filters?: Row }> {
  const response = await get(t, path)
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { data: Row[]; pagination: Row; filters?: Row }
}

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
  users = []
  for (let i = 0; i < 7; i++) users.push(await createUser(acme))
  orders = []
  for (let i = 0; i < 42; i++) {
    const order = await createOrder(acme, {
      userId: users[(i * 5) % 7]!.id,
      status: STATUSES[(i * 3 + Math.floor(i / 7)) % 5],
      amount: 100 + ((i * 37) % 500),
      currency: i % 4 === 0 ? 'USD' : 'EUR',
    })
    const createdAt = TIMES[Math.floor(i / 6) % 7]!
    await server.sql.run('UPDATE orders SET created_at = ? WHERE id = ?', createdAt, order.id)
    orders.push({ ...order, createdAt })
  }
  await createOrder(globex, { amount: 999_999 })
  await createOrder(globex, { amount: 1 })
})
afterAll(() => server.stop())

describe('GET /api/v2/orders/aggregates', () => {
  const groupings = [
    'status',
    'user_id',
    'currency',
    'created_at:day',
    'created_at:week',
    'created_at:month',
    'status,created_at:month',
    'currency,status,user_id',
  ]
  for (const groupBy of groupings) {
    it(`group_by=${groupBy} counts, sums, averages and bounds every group, sorted by the keys`, async () => {
      const items = await walkGroups(acme, `/api/v2/orders/aggregates?group_by=${groupBy}&${ALL}&limit=5`)
      expect(items).toEqual(groupsOf(orders, keysOf(groupBy), ALL_FIELDS))
    })
  }

  it('without group_by answers one item for every record the filters keep', async () => {
    const all = await body(acme, `/api/v2/orders/aggregates?${ALL}`)
    expect(all.data).toEqual(groupsOf(orders, [], ALL_FIELDS))
    expect(all.pagination).toMatchObject({ hasMore: false, next: null })
    // Nothing kept: count 0, a sum of nothing 0, the rest null.
    const none = await body(acme, `/api/v2/orders/aggregates?${ALL}&amount_gte=100000`)
    expect(none.data).toEqual([
      { count: 0, sum: { amount: 0 }, avg: { amount: null }, min: { amount: null }, max: { amount: null } },
    ])
  })

  it('counts alone when aggregate is not given', async () => {
    const { data } = await body(acme, '/api/v2/orders/aggregates?group_by=status')
    expect(data).toEqual(groupsOf(orders, keysOf('status')))
  })

  it('buckets instants at UTC day, ISO week and month boundaries', async () => {
    const days = (await body(acme, '/api/v2/orders/aggregates?group_by=created_at:day&limit=100')).data
    expect(days.map((d) => d.createdAt)).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-12-31T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ])
    const weeks = (await body(acme, '/api/v2/orders/aggregates?group_by=created_at:week')).data
    expect(weeks.map((w) => [w.createdAt, w.count])).toEqual([
      ['2026-02-23T00:00:00.000Z', 24],
      ['2026-03-02T00:00:00.000Z', 6],
      ['2026-12-28T00:00:00.000Z', 12],
    ])
    const months = (await body(acme, '/api/v2/orders/aggregates?group_by=created_at:month')).data
    expect(months.map((m) => [m.createdAt, m.count])).toEqual([
      ['2026-02-01T00:00:00.000Z', 12],
      ['2026-03-01T00:00:00.000Z', 18],
      ['2026-12-01T00:00:00.000Z', 6],
      ['2027-01-01T00:00:00.000Z', 6],
    ])
  })

  it("applies the list's filters, echoed as a list echoes them", async () => {
    const path =
      '/api/v2/orders/aggregates?status=paid,shipped&amount_gte=300&group_by=user_id&aggregate=count,sum(amount)'
    const answer = await body(acme, path)
    const kept = orders.filter(
      (o) => ['paid', 'shipped'].includes(o.status as string) && (o.amount as number) >= 300,
    )
    expect(answer.data).toEqual(groupsOf(kept, keysOf('user_id'), { sum: ['amount'] }))
    expect(answer.filters).toEqual({ status: ['paid', 'shipped'], amount_gte: 300 })
    const since = await body(acme, '/api/v2/orders/aggregates?created_after=2026-03-01T12:00:00Z')
    expect(since.data).toEqual([
      { count: orders.filter((o) => (o.createdAt as string) > '2026-03-01T12:00:00Z').length },
    ])
  })

  it('groups by a boolean and takes q as the list does', async () => {
    const shop = await server.tenant()
    const made: Row[] = []
    for (let i = 0; i < 6; i++)
      made.push(
        await createProduct(shop, {
          name: i % 2 ? `Bowl ${i}` : `Plate ${i}`,
          active: i % 3 !== 0,
          price: 100 * (i + 1),
        }),
      )
    const path = '/api/v2/products/aggregates?group_by=active&aggregate=count,sum(price),min(name)'
    const { data } = await body(shop, path)
    expect(data).toEqual(groupsOf(made, keysOf('active'), { sum: ['price'], min: ['name'] }))
    expect(data.map((d) => d.active)).toEqual([false, true])
    const mugs = made.filter((p) => (p.name as string).startsWith('Bowl'))
    expect((await body(shop, `${path}&q=bowl`)).data).toEqual(
      groupsOf(mugs, keysOf('active'), { sum: ['price'], min: ['name'] }),
    )
  })

  it('sums a money amount in minor units in v2, where records show it as an object', async () => {
    const { data } = await body(acme, '/api/v2/orders/aggregates?group_by=currency&aggregate=sum(amount)')
    expect(data.map((d) => (d.sum as Row).amount)).toEqual(
      groupsOf(orders, keysOf('currency'), { sum: ['amount'] }).map((g) => (g.sum as Row).amount),
    )
    expect(typeof (data[0]!.sum as Row).amount).toBe('number')
  })

  it('counts only the caller organization', async () => {
    const { data } = await body(globex, '/api/v2/orders/aggregates?aggregate=count,sum(amount)')
    expect(data).toEqual([{ count: 2, sum: { amount: 1_000_000 } }])
  })
})

describe('sorting and paging groups', () => {
  const sorts: [string, string, (a: Row, b: Row) => number][] = [
    ['-count', 'count', (a, b) => (b.count as number) - (a.count as number)],
    ['-sum(amount)', 'count,sum(amount)', (a, b) => sumOf(b) - sumOf(a)],
    ['sum(amount)', 'count,sum(amount)', (a, b) => sumOf(a) - sumOf(b)],
    ['user_id:desc', 'count', (a, b) => compareValues(b.userId, a.userId)],
    ['-max(amount)', 'max(amount)', (a, b) => maxOf(b) - maxOf(a)],
  ]
  for (const [sort, aggregate, order] of sorts) {
    it(`sort=${sort}: a cursor walk answers every group once, in order, ties by the keys`, async () => {
      const path = `/api/v2/orders/aggregates?group_by=user_id&aggregate=${aggregate}&sort=${sort}&limit=2`
      const items = await walkGroups(acme, path)
      const fields = {
        sum: aggregate.includes('sum') ? ['amount'] : [],
        max: aggregate.includes('max') ? ['amount'] : [],
      }
      const expected = groupsOf(orders, keysOf('user_id'), fields)
        .map((g) => (aggregate.includes('count') ? g : { userId: g.userId, max: g.max }))
        .sort((a, b) => order(a, b) || compareValues(a.userId, b.userId))
      expect(items).toEqual(expected)
    })
  }

  it('walks two keys sorted by an aggregate with ties to the last page', async () => {
    const items = await walkGroups(
      acme,
      '/api/v2/orders/aggregates?group_by=status,currency&sort=-count&limit=3',
    )
    const expected = groupsOf(orders, keysOf('status,currency')).sort(
      (a, b) =>
        (b.count as number) - (a.count as number) ||
        compareValues(a.status, b.status) ||
        compareValues(a.currency, b.currency),
    )
    expect(items).toEqual(expected)
  })

  it('pages in page and offset style, with totals when asked', async () => {
    const groups = groupsOf(orders, keysOf('user_id'))
    const second = await body(
      acme,
      '/api/v2/orders/aggregates?group_by=user_id&page=2&per_page=3&include_total=true',
    )
    expect(second.data).toEqual(groups.slice(3, 6))
    expect(second.pagination).toEqual({ page: 2, limit: 3, total: 7, totalPages: 3, hasMore: true })
    const last = await body(acme, '/api/v2/orders/aggregates?group_by=user_id&offset=6&limit=3')
    expect(last.data).toEqual(groups.slice(6))
    expect(last.pagination).toEqual({
      page: 3,
      offset: 6,
      limit: 3,
      total: null,
      totalPages: null,
      hasMore: false,
    })
    const past = await body(
      acme,
      '/api/v2/orders/aggregates?group_by=user_id&page=9&per_page=3&include_total=true',
    )
    expect(past.data).toEqual([])
    expect(past.pagination).toMatchObject({ total: 7, totalPages: 3, hasMore: false })
    const cursor = await body(acme, '/api/v2/orders/aggregates?group_by=user_id&limit=2&include_total=true')
    expect(cursor.pagination).toMatchObject({ limit: 2, hasMore: true, total: 7 })
  })

  it('refuses a cursor made for another query or another organization', async () => {
    const first = await body(acme, '/api/v2/orders/aggregates?group_by=user_id&limit=2')
    const cursor = (first.pagination as { nextCursor: string }).nextCursor
    await expectBadParam(
      await get(acme, `/api/v2/orders/aggregates?group_by=user_id&sort=-count&limit=2&cursor=${cursor}`),
      'cursor',
    )
    await expectBadParam(
      await get(globex, `/api/v2/orders/aggregates?group_by=user_id&limit=2&cursor=${cursor}`),
      'cursor',
    )
  })
})

const sumOf = (g: Row) => (g.sum as Row).amount as number
const maxOf = (g: Row) => (g.max as Row).amount as number

describe('nested aggregates', () => {
  it('count the children of one parent only', async () => {
    const [a, b] = [
      await createOrder(acme, { userId: users[1]!.id }),
      await createOrder(acme, { userId: users[2]!.id }),
    ]
    orders.push(a, b)
    const [mug, cup] = [await createProduct(acme), await createProduct(acme)]
    const items: Row[] = []
    for (const [productId, quantity] of [
      [mug.id, 2],
      [mug.id, 3],
      [cup.id, 7],
    ] as const)
      items.push(
        await create(acme, `/api/v2/orders/${a.id}/line-items`, { productId, quantity, unitPrice: 100 }),
      )
    await create(acme, `/api/v2/orders/${b.id}/line-items`, {
      productId: mug.id,
      quantity: 50,
      unitPrice: 100,
    })
    const { data } = await body(
      acme,
      `/api/v2/orders/${a.id}/line-items/aggregates?group_by=product_id&aggregate=count,sum(quantity)`,
    )
    expect(data).toEqual(groupsOf(items, keysOf('product_id'), { sum: ['quantity'] }))
    expect((await get(globex, `/api/v2/orders/${a.id}/line-items/aggregates`)).status).toBe(403)
    expect(
      (await get(acme, '/api/v2/orders/ord_01jd3v0m7qf8s9t2w4x6y8z0ab/line-items/aggregates')).status,
    ).toBe(404)
    expect((await get(acme, '/api/v2/orders/nope/line-items/aggregates')).status).toBe(404)
  })
})

describe('who may count what', () => {
  it('needs the read scope of the collection (403 otherwise)', async () => {
    const narrow = await clientOf(server, acme.orgId, ['read:users'])
    const response = await get(narrow, '/api/v2/orders/aggregates')
    expect(response.status).toBe(403)
  })

  it('never counts an event the caller could not list (events of collections it cannot read)', async () => {
    const path = '/api/v2/events/aggregates?group_by=resource'
    const everything = (await body(acme, path)).data
    expect(everything.map((g) => g.resource)).toEqual(expect.arrayContaining(['orders', 'users']))
    const withOrders = await clientOf(server, acme.orgId, ['read:events', 'read:orders'])
    expect((await body(withOrders, path)).data).toEqual(everything.filter((g) => g.resource === 'orders'))
    const eventsOnly = await clientOf(server, acme.orgId, ['read:events'])
    expect((await body(eventsOnly, path)).data).toEqual([])
    expect((await body(eventsOnly, '/api/v2/events/aggregates')).data).toEqual([{ count: 0 }])
    // Naming a collection it may not read is 403, as the list answers.
    expect((await get(withOrders, `${path}&resource=users`)).status).toBe(403)
  })
})

describe('mistakes are 400 naming the parameter', () => {
  const cases: [string, string][] = [
    ['group_by=bogus', 'group_by'],
    ['group_by=created_at', 'group_by'],
    ['group_by=status:day', 'group_by'],
    ['group_by=status,status', 'group_by'],
    ['group_by=status,currency,user_id,amount', 'group_by'],
    ['group_by=', 'group_by'],
    ['group_by=id', 'group_by'],
    ['group_by=status&group_by=currency', 'group_by'],
    ['aggregate=sum(status)', 'aggregate'],
    ['aggregate=avg(currency)', 'aggregate'],
    ['aggregate=min(user_id)', 'aggregate'],
    ['aggregate=median(amount)', 'aggregate'],
    ['aggregate=count(amount)', 'aggregate'],
    ['aggregate=count,count', 'aggregate'],
    ['aggregate=', 'aggregate'],
    [
      `aggregate=count,${['sum', 'avg', 'min', 'max'].map((f) => `${f}(amount),${f}(created_at)`).join(',')},max(status)`,
      'aggregate',
    ],
    ['group_by=status&sort=amount', 'sort'],
    ['group_by=status&sort=-sum(amount)', 'sort'],
    ['group_by=status&sort=-count,count', 'sort'],
    ['group_by=created_at:day&sort=created_at:day', 'sort'],
    ['sort=-count:desc', 'sort'],
    ['after=ord_01jd3v0m7qf8s9t2w4x6y8z0ab', 'after'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['page=1&cursor=abc', 'cursor'],
    ['cursor=abc', 'cursor'],
    ['include_total=yes', 'include_total'],
    ['fields=id', 'fields'],
    ['expand=user', 'expand'],
    ['status=bogus', 'status'],
    ['bogus=1', 'bogus'],
    ['q=anything', 'q'],
  ]
  for (const [query, field] of cases) {
    it(`${query.slice(0, 60)} -> 400 naming ${field}`, async () => {
      await expectBadParam(await get(acme, `/api/v2/orders/aggregates?${query}`), field)
    })
  }
})

describe('HTTP', () => {
  const path = '/api/v2/orders/aggregates?group_by=status&aggregate=count,sum(amount)'

  it('has a strong ETag and Last-Modified, and answers 304 to either condition', async () => {
    const first = await get(acme, path)
    const tag = first.headers.get('etag')!
    expect(tag).toMatch(/^"[^"]+"$/)
    const lastModified = first.headers.get('last-modified')!
    expect(Date.parse(lastModified)).not.toBeNaN()
    expect((await get(acme, path, { headers: { 'If-None-Match': tag } })).status).toBe(304)
    expect((await get(acme, path, { headers: { 'If-Modified-Since': lastModified } })).status).toBe(304)
  })

  it('answers the next read after a write to the collection anew (the response cache follows writes)', async () => {
    const before = await get(acme, path)
    const tag = before.headers.get('etag')!
    const counted = (await before.json()) as { data: Row[] }
    expect((await get(acme, path)).headers.get('etag')).toBe(tag)
    await nextSecond()
    await createOrder(acme, { userId: users[0]!.id, status: 'pending', amount: 1000 })
    const after = await get(acme, path, { headers: { 'If-None-Match': tag } })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(tag)
    const pending = (b: { data: Row[] }) => b.data.find((g) => g.status === 'pending')!
    const now = (await after.json()) as { data: Row[] }
    expect(pending(now).count).toBe((pending(counted).count as number) + 1)
    expect(Date.parse(after.headers.get('last-modified')!)).toBeGreaterThan(
      Date.parse(before.headers.get('last-modified')!),
    )
    orders.push({
      userId: users[0]!.id,
      status: 'pending',
      amount: 1000,
      currency: 'EUR',
      createdAt: new Date().toISOString(),
    })
  })

  it('answers HEAD, OPTIONS with Allow and Accept-Query, and 405 to other methods', async () => {
    const head = await get(acme, path, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('etag')).toBeTruthy()
    expect(await head.text()).toBe('')
    const options = await get(acme, '/api/v2/orders/aggregates', { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('GET, HEAD, QUERY, OPTIONS')
    expect(options.headers.get('accept-query')).toBe(
      '"application/x-www-form-urlencoded", "application/json"',
    )
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await get(acme, '/api/v2/orders/aggregates', { method })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('GET, HEAD, QUERY, OPTIONS')
    }
  })

  it('is v2 only: in v1 "aggregates" is no id (404)', async () => {
    expect((await get(acme, '/api/v1/orders/aggregates')).status).toBe(404)
  })
})

describe('QUERY /api/v2/orders/aggregates', () => {
  const query = (t: Tenant, type: string, text: string) =>
    t.fetch('/api/v2/orders/aggregates', { method: 'QUERY', headers: { 'Content-Type': type }, body: text })

  it('takes form and JSON bodies with the GET parameters, and stores the query', async () => {
    const expected = await body(
      acme,
      '/api/v2/orders/aggregates?group_by=status&aggregate=count,sum(amount)&status=paid,shipped',
    )
    const form = await query(
      acme,
      'application/x-www-form-urlencoded',
      'group_by=status&aggregate=count,sum(amount)&status=paid,shipped',
    )
    expect(form.status).toBe(200)
    expect(form.headers.get('accept-query')).toBe('"application/x-www-form-urlencoded", "application/json"')
    expect(await form.json()).toEqual(expected)
    const json = await query(
      acme,
      'application/json',
      JSON.stringify({
        group_by: 'status',
        aggregate: ['count', 'sum(amount)'],
        status: ['paid', 'shipped'],
      }),
    )
    expect(await json.json()).toEqual(expected)
    const stored = await get(acme, json.headers.get('location')!)
    expect(stored.status).toBe(200)
    expect(((await stored.json()) as Row).data).toEqual(expected.data)
  })

  it('continues a stored query with its cursor to the last group', async () => {
    const answer = await query(acme, 'application/json', JSON.stringify({ group_by: 'user_id', limit: 3 }))
    const first = (await answer.json()) as { data: Row[]; pagination: { next: string } }
    expect(first.pagination.next).toStartWith('/api/v2/queries/')
    const rest = await walkGroups(acme, first.pagination.next)
    expect([...first.data, ...rest]).toEqual(groupsOf(orders, keysOf('user_id')))
  })

  it('refuses SQL and JSONPath bodies with 415 naming what it takes', async () => {
    for (const type of ['application/sql', 'application/jsonpath']) {
      const response = await query(acme, type, 'SELECT * FROM orders')
      expect(response.status).toBe(415)
      expect(response.headers.get('accept-query')).toBe(
        '"application/x-www-form-urlencoded", "application/json"',
      )
    }
  })

  it('answers a bad parameter in the body with 422 naming it, as a list QUERY does', async () => {
    const response = await query(acme, 'application/json', JSON.stringify({ group_by: 'bogus' }))
    expect(response.status).toBe(422)
    const error = ((await response.json()) as { error: { details: { field: string }[] } }).error
    expect(error.details.map((d) => d.field)).toEqual(['group_by'])
  })
})
