import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { ResponseValidator } from '../openapi/response-validator.ts'
import { type Page, query, queryPage, SQL, seedOrders } from '../query-method/support.ts'
import { createLineItem, createOrder, readJson } from '../rest/fixtures.ts'
import { fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * Aggregates in application/sql QUERY bodies (docs/bulk.md, "Aggregates in SQL bodies and
 * GraphQL"): GROUP BY, HAVING, the five functions, ORDER BY over keys and aggregates, pages, stored
 * queries, every refusal with the place it names, and the organization's walls.
 */

type Group = Record<string, unknown>

let server: TestServer
let acme: Tenant
let rival: Tenant

// seedOrders: paid 100 EUR, pending 250 USD, paid 400 USD, shipped 50 EUR, cancelled 999 GBP,
// paid 250 EUR, delivered 0 EUR.
beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  rival = await server.tenant()
  await seedOrders(acme)
  await createOrder(rival, { status: 'paid', amount: 5000, currency: 'EUR' })
})
afterAll(() => server.stop())

const groups = async (sql: string, path = '/api/v1/orders', tenant = acme) =>
  (await queryPage<Group>(tenant, path, SQL, sql)).data

const today = () => `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`

describe('QUERY /api/v1/orders with an aggregate SQL body', () => {
  const cases: [string, string, Group[]][] = [
    ['count without GROUP BY is one group', 'SELECT count(*) FROM orders', [{ count: 7 }]],
    [
      'WHERE filters what is counted',
      "SELECT count(*), sum(amount) FROM orders WHERE currency = 'EUR'",
      [{ count: 4, sum: { amount: 400 } }],
    ],
    [
      'each function over one key',
      "SELECT status, count(*), sum(amount), avg(amount), min(amount), max(amount) FROM orders WHERE status = 'paid' GROUP BY status",
      [
        {
          status: 'paid',
          count: 3,
          sum: { amount: 750 },
          avg: { amount: 250 },
          min: { amount: 100 },
          max: { amount: 400 },
        },
      ],
    ],
    [
      'GROUP BY one key, in key order',
      'SELECT status, count(*), sum(amount) FROM orders GROUP BY status ORDER BY status',
      [
        { status: 'cancelled', count: 1, sum: { amount: 999 } },
        { status: 'delivered', count: 1, sum: { amount: 0 } },
        { status: 'paid', count: 3, sum: { amount: 750 } },
        { status: 'pending', count: 1, sum: { amount: 250 } },
        { status: 'shipped', count: 1, sum: { amount: 50 } },
      ],
    ],
    [
      'GROUP BY two keys',
      'SELECT status, currency, count(*) FROM orders GROUP BY status, currency ORDER BY status, currency',
      [
        { status: 'cancelled', currency: 'GBP', count: 1 },
        { status: 'delivered', currency: 'EUR', count: 1 },
        { status: 'paid', currency: 'EUR', count: 2 },
        { status: 'paid', currency: 'USD', count: 1 },
        { status: 'pending', currency: 'USD', count: 1 },
        { status: 'shipped', currency: 'EUR', count: 1 },
      ],
    ],
    [
      'HAVING with OR',
      'SELECT status, count(*), sum(amount) FROM orders GROUP BY status HAVING count(*) >= 2 OR sum(amount) > 900 ORDER BY status',
      [
        { status: 'cancelled', count: 1, sum: { amount: 999 } },
        { status: 'paid', count: 3, sum: { amount: 750 } },
      ],
    ],
    [
      'HAVING with AND',
      'SELECT status, count(*) FROM orders GROUP BY status HAVING count(*) = 1 AND sum(amount) < 100 ORDER BY status',
      [
        { status: 'delivered', count: 1 },
        { status: 'shipped', count: 1 },
      ],
    ],
    [
      'HAVING with NOT, the aggregate on the right and BETWEEN',
      'SELECT currency, count(*) FROM orders GROUP BY currency HAVING NOT (1 = count(*)) AND max(amount) BETWEEN 300 AND 500',
      [{ currency: 'USD', count: 2 }],
    ],
    [
      'ORDER BY an aggregate, then a key, with LIMIT and OFFSET',
      'SELECT status, count(*) FROM orders GROUP BY status ORDER BY count(*) DESC, status LIMIT 2 OFFSET 1',
      [
        { status: 'cancelled', count: 1 },
        { status: 'delivered', count: 1 },
      ],
    ],
    [
      'ORDER BY an aggregate that is not selected',
      'SELECT currency, count(*) FROM orders GROUP BY currency ORDER BY sum(amount) DESC',
      [
        { currency: 'GBP', count: 1 },
        { currency: 'USD', count: 2 },
        { currency: 'EUR', count: 4 },
      ],
    ],
    [
      'a key named but not selected still shows',
      'SELECT count(*) FROM orders GROUP BY currency ORDER BY currency DESC',
      [
        { currency: 'USD', count: 2 },
        { currency: 'GBP', count: 1 },
        { currency: 'EUR', count: 4 },
      ],
    ],
    [
      'qualified names and upper-case functions',
      'SELECT orders.status, COUNT(*) FROM orders WHERE orders.amount > 200 GROUP BY orders.status ORDER BY orders.status',
      [
        { status: 'cancelled', count: 1 },
        { status: 'paid', count: 2 },
        { status: 'pending', count: 1 },
      ],
    ],
  ]
  it.each(cases)('%s', async (_name, sql, expected) => {
    expect(await groups(sql)).toEqual(expected)
  })

  it.each(['day', 'week', 'month'] as const)('groups a timestamp by %s with date_trunc', async (bucket) => {
    const now = new Date()
    const start = new Date(today())
    if (bucket === 'week') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7))
    if (bucket === 'month') start.setUTCDate(1)
    const data = await groups(
      `SELECT date_trunc('${bucket}', created_at), count(*) FROM orders GROUP BY date_trunc('${bucket}', created_at)`,
    )
    expect(now.getTime()).toBeGreaterThanOrEqual(start.getTime())
    expect(data).toEqual([{ createdAt: start.toISOString(), count: 7 }])
  })

  it('compares min and max of a timestamp with a date in HAVING', async () => {
    const sql = (date: string) => `SELECT max(created_at) FROM orders HAVING max(created_at) > '${date}'`
    expect(await groups(sql('2000-01-01'))).toEqual([
      { max: { createdAt: expect.stringMatching(/^\d{4}-.*Z$/) } },
    ])
    expect(await groups(sql('2999-01-01'))).toEqual([])
  })

  it("never counts another organization's records", async () => {
    expect(await groups('SELECT count(*), sum(amount) FROM orders')).toEqual([
      { count: 7, sum: { amount: 2049 } },
    ])
    expect(await groups('SELECT count(*), sum(amount) FROM orders', '/api/v1/orders', rival)).toEqual([
      { count: 1, sum: { amount: 5000 } },
    ])
    expect(await groups('SELECT count(*) FROM orders WHERE amount = 5000')).toEqual([{ count: 0 }])
  })

  it('counts only the nested records of the parent in the path', async () => {
    const shop = await server.tenant()
    const [one, other] = [await createOrder(shop), await createOrder(shop)]
    await createLineItem(shop, one.id, { quantity: 2 })
    await createLineItem(shop, one.id, { quantity: 5 })
    await createLineItem(shop, other.id, { quantity: 7 })
    const sql = 'SELECT count(*), sum(quantity), max(quantity) FROM line_items'
    expect(await groups(sql, `/api/v1/orders/${one.id}/line-items`, shop)).toEqual([
      { count: 2, sum: { quantity: 7 }, max: { quantity: 5 } },
    ])
  })

  it('runs on /api/v1/search, where FROM names the collection', async () => {
    expect(
      await groups(
        "SELECT currency, count(*) FROM orders WHERE currency = 'GBP' GROUP BY currency",
        '/api/v1/search',
      ),
    ).toEqual([{ currency: 'GBP', count: 1 }])
  })

  it('answers as the v2 OpenAPI document says a QUERY may: records, or groups', async () => {
    const validator = new ResponseValidator(await (await server.fetch('/api/v2/openapi.json')).json())
    for (const sql of [
      'SELECT id, amount FROM orders LIMIT 2',
      "SELECT status, date_trunc('day', created_at), count(*), avg(amount), max(created_at) FROM orders GROUP BY status, date_trunc('day', created_at)",
      'SELECT count(*) FROM orders HAVING count(*) > 100',
    ]) {
      const response = await query(acme, '/api/v2/orders', SQL, sql)
      const body = await response.text()
      const exchange = {
        method: 'QUERY',
        target: '/api/v2/orders',
        status: response.status,
        headers: response.headers,
        body,
      }
      expect({ sql, problems: validator.check(exchange) }).toEqual({ sql, problems: [] })
    }
  })

  it('answers v2 as v1: a sum of money is its minor units', async () => {
    expect(await groups("SELECT sum(amount) FROM orders WHERE currency = 'USD'", '/api/v2/orders')).toEqual([
      { sum: { amount: 650 } },
    ])
  })

  it('pages through every group by following pagination.next, and GET on Location runs it again', async () => {
    const sql = 'SELECT status, count(*) FROM orders GROUP BY status ORDER BY count(*) DESC, status LIMIT 2'
    const response = await query(acme, '/api/v1/orders', SQL, sql)
    expect(response.status).toBe(200)
    const location = response.headers.get('location')!
    expect(location).toMatch(/^\/api\/v1\/queries\/qry_/)
    let page = await readJson<Page<Group>>(response)
    const seen = [...page.data]
    while (page.pagination.next) {
      const next = await acme.fetch(page.pagination.next)
      expect(next.status).toBe(200)
      page = await readJson<Page<Group>>(next)
      seen.push(...page.data)
    }
    expect(seen.map((g) => g.status)).toEqual(['paid', 'cancelled', 'delivered', 'pending', 'shipped'])
    const again = await acme.fetch(location)
    expect(again.status).toBe(200)
    expect((await readJson<Page<Group>>(again)).data).toEqual(seen.slice(0, 2))
    const stored = await acme.fetch(response.headers.get('content-location')!)
    expect((await readJson<Page<Group>>(stored)).data).toEqual(seen.slice(0, 2))
  })

  it('refuses a stored aggregate query to another organization', async () => {
    const response = await query(acme, '/api/v1/orders', SQL, 'SELECT count(*) FROM orders GROUP BY currency')
    expect((await rival.fetch(response.headers.get('location')!)).status).toBe(403)
  })
})

describe('refusals of aggregate SQL bodies (422 naming the place)', () => {
  const refused: [string, string][] = [
    ['SELECT count(*) AS n FROM orders', 'aliases are not allowed'],
    ['SELECT status, count(*) FROM orders', 'status is selected but not in GROUP BY'],
    ['SELECT status, count(*) FROM orders GROUP BY currency', 'status is selected but not in GROUP BY'],
    ['SELECT sum(currency) FROM orders', 'column currency cannot be summed'],
    ['SELECT avg(status) FROM orders', 'column status cannot be averaged'],
    ['SELECT min(currency) FROM orders', 'column currency cannot be used in min()'],
    ['SELECT max(nope) FROM orders', 'unknown column nope'],
    ['SELECT count(amount) FROM orders', 'count takes *'],
    ['SELECT count(DISTINCT status) FROM orders', 'count(DISTINCT ...) is not allowed'],
    ['SELECT count(*) OVER () FROM orders', 'takes no ORDER BY, FILTER or OVER'],
    ['SELECT total(amount) FROM orders', 'the function total is not allowed'],
    ['SELECT *, count(*) FROM orders', '* cannot be selected'],
    ['SELECT status FROM orders GROUP BY status', 'select at least one of count(*)'],
    ['SELECT count(*), count(*) FROM orders', 'count(*) is listed twice'],
    ['SELECT count(*) FROM orders GROUP BY nope', 'unknown column nope'],
    ['SELECT count(*) FROM orders GROUP BY org_id', 'unknown column org_id'],
    ['SELECT count(*) FROM orders GROUP BY 1', 'a literal is not allowed in GROUP BY'],
    ['SELECT count(*) FROM orders GROUP BY created_at', 'created_at is a timestamp'],
    [
      "SELECT count(*) FROM orders GROUP BY date_trunc('year', created_at)",
      "date_trunc takes 'day', 'week' or 'month'",
    ],
    ["SELECT count(*) FROM orders GROUP BY date_trunc('day', amount)", 'column amount cannot be truncated'],
    [
      "SELECT count(*) FROM orders GROUP BY date_trunc('day', created_at), date_trunc('month', created_at)",
      'GROUP BY names created_at twice',
    ],
    [
      'SELECT count(*) FROM orders GROUP BY status, currency, user_id, amount',
      'GROUP BY takes at most 3 keys',
    ],
    ['SELECT count(*) FROM users GROUP BY role', 'unknown table users'],
    ['SELECT count(*) FROM orders JOIN users ON orders.user_id = users.id', 'a join'],
    ['SELECT count(*) FROM (SELECT * FROM orders)', 'a subquery'],
    [
      "SELECT count(*) FROM orders GROUP BY status HAVING status = 'paid'",
      'conditions on columns go in WHERE',
    ],
    ['SELECT count(*) FROM orders HAVING count(*) > (SELECT 1)', 'a subquery is not allowed'],
    ['SELECT count(*) FROM orders HAVING count(*) > sum(amount)', 'compare with a literal value'],
    ["SELECT count(*) FROM orders HAVING count(*) > 'x'", 'count(*) compares with a number'],
    ['SELECT count(*) FROM orders HAVING count(*) IN (1, 2)', 'the operator IN is not allowed in HAVING'],
    ['SELECT count(*) FROM orders HAVING count(*) > NULL', 'never true'],
    ['SELECT max(created_at) FROM orders HAVING max(created_at) > 5', 'must be an ISO 8601 date'],
    ['SELECT count(*) FROM orders WHERE count(*) > 1', 'conditions on aggregates go in HAVING'],
    ['SELECT count(*) FROM orders GROUP BY status ORDER BY amount', 'only GROUP BY keys and aggregates'],
    ['SELECT count(*) FROM orders GROUP BY status LIMIT 101', 'LIMIT takes a whole number from 1 to 100'],
    ['SELECT count(*) FROM orders WINDOW w AS ()', 'WINDOW is not allowed'],
  ]
  it.each(refused)('%s', async (sql, message) => {
    const response = await query(acme, '/api/v1/orders', SQL, sql)
    const body = await response.text()
    expect({ status: response.status, body }).toMatchObject({ status: 422 })
    const detail = JSON.parse(body).error.details[0]
    expect(detail.field).toBe('body')
    expect(detail.message).toContain(message)
    expect(detail.message).toMatch(/ at \d+$/)
  })
})

describe('aggregate SQL bodies on the library', () => {
  const schema = librarySchema()
  let library: TestServer
  let tenant: Tenant
  let bookId: string
  beforeAll(async () => {
    library = await startTestServer({ schema })
    tenant = await library.tenant()
    const made = fixtures(schema, tenant)
    const le = await made.create('authors', { name: 'Ursula Le Guin' })
    const pratchett = await made.create('authors', { name: 'Terry Pratchett' })
    for (const [authorId, pages, status] of [
      [le.id, 387, 'available'],
      [le.id, 248, 'lent'],
      [pratchett.id, 288, 'available'],
      [pratchett.id, 320, 'available'],
      [pratchett.id, 400, 'lost'],
    ] as const)
      bookId = String((await made.create('books', { authorId, pages, status })).id)
  })
  afterAll(() => library.stop())

  it('counts, sums and bounds books per status, ordered by the sum', async () => {
    const page = await queryPage<Group>(
      tenant,
      '/api/v1/books',
      SQL,
      'SELECT status, count(*), sum(pages), min(pages), max(title) FROM books GROUP BY status ORDER BY sum(pages) DESC',
    )
    expect(page.data.map(({ max: _, ...rest }) => rest)).toEqual([
      { status: 'available', count: 3, sum: { pages: 995 }, min: { pages: 288 } },
      { status: 'lost', count: 1, sum: { pages: 400 }, min: { pages: 400 } },
      { status: 'lent', count: 1, sum: { pages: 248 }, min: { pages: 248 } },
    ])
    expect(typeof (page.data[0]!.max as Group).title).toBe('string')
  })

  it('groups by a reference and keeps groups with HAVING', async () => {
    const page = await queryPage<Group>(
      tenant,
      '/api/v1/books',
      SQL,
      'SELECT author_id, count(*), avg(pages) FROM books GROUP BY author_id HAVING count(*) > 2',
    )
    expect(page.data).toEqual([{ authorId: expect.stringMatching(/^aut_/), count: 3, avg: { pages: 336 } }])
  })

  it('refuses sum of a text field and grouping by a field without filter or sort', async () => {
    const cases: [string, string][] = [
      ['SELECT sum(title) FROM books', 'column title cannot be summed (allowed: pages)'],
      ['SELECT count(*) FROM chapters GROUP BY title', 'column title cannot be grouped by'],
    ]
    for (const [sql, message] of cases) {
      const path = sql.includes('chapters') ? `/api/v1/books/${bookId}/chapters` : '/api/v1/books'
      const response = await query(tenant, path, SQL, sql)
      expect(response.status).toBe(422)
      expect(JSON.parse(await response.text()).error.details[0].message).toContain(message)
    }
  })
})
