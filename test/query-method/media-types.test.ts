import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createAddress, createUser, type Entity } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { FORM, getPage, ids, JSON_TYPE, JSONPATH, type Page, queryPage, SQL, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant
let orders: Entity[]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  orders = (await seedOrders(acme)).orders
})
afterAll(() => server.stop())

const paidIds = () => orders.filter((o) => o.status === 'paid').map((o) => o.id)

describe('QUERY /api/v1/orders answers like the GET it stands for', () => {
  // Each row: a GET query string and the same query in each body type.
  const cases: { name: string; get: string; form: string; json: object; sql: string }[] = [
    {
      name: 'equality filter',
      get: 'status=paid',
      form: 'status=paid',
      json: { status: 'paid' },
      sql: "SELECT * FROM orders WHERE status = 'paid'",
    },
    {
      name: 'range filter, sort and limit',
      get: 'amount_gte=100&sort=-amount&limit=3',
      form: 'amount_gte=100&sort=-amount&limit=3',
      json: { amount_gte: 100, sort: '-amount', limit: 3 },
      sql: 'SELECT * FROM orders WHERE amount >= 100 ORDER BY amount DESC LIMIT 3',
    },
    {
      name: 'list of values and ascending sort',
      get: 'status=paid,shipped&sort=amount',
      form: 'status=paid%2Cshipped&sort=amount',
      json: { status: ['paid', 'shipped'], sort: 'amount' },
      sql: "SELECT * FROM orders WHERE status IN ('paid', 'shipped') ORDER BY amount ASC",
    },
    {
      name: 'offset pagination',
      get: 'offset=2&limit=2',
      form: 'offset=2&limit=2',
      json: { offset: 2, limit: 2 },
      sql: 'SELECT * FROM orders LIMIT 2 OFFSET 2',
    },
  ]
  for (const c of cases) {
    it(`${c.name}: form, JSON and SQL bodies give the GET's data and pagination`, async () => {
      const expected = await getPage(acme, `/api/v1/orders?${c.get}`)
      expect(expected.data.length).toBeGreaterThan(0)
      const bodies: [string, string][] = [
        [FORM, c.form],
        [JSON_TYPE, JSON.stringify(c.json)],
        [SQL, c.sql],
      ]
      for (const [type, body] of bodies) {
        const page = await queryPage(acme, '/api/v1/orders', type, body)
        expect({ type, data: page.data }).toEqual({ type, data: expected.data })
        const { next: _a, nextCursor: _b, ...rest } = page.pagination
        const { next: _c, nextCursor: _d, ...expectedRest } = expected.pagination
        expect(rest).toEqual(expectedRest)
      }
    })
  }

  it('echoes the applied filters of form and JSON bodies as GET does', async () => {
    const get = await getPage(acme, '/api/v1/orders?status=paid&amount_gte=100')
    const form = await queryPage(acme, '/api/v1/orders', FORM, 'status=paid&amount_gte=100')
    const json = await queryPage(acme, '/api/v1/orders', JSON_TYPE, '{"status":"paid","amount_gte":100}')
    expect(form.filters).toEqual(get.filters!)
    expect(json.filters).toEqual(get.filters!)
  })

  it('lets a JSON body carry a /search filter expression, combined with the other parameters', async () => {
    const page = await queryPage(
      acme,
      '/api/v1/orders',
      JSON_TYPE,
      JSON.stringify({ filter: "currency = 'EUR'", status: 'paid' }),
    )
    const expected = orders.filter((o) => o.status === 'paid' && o.currency === 'EUR').map((o) => o.id)
    expect(ids(page)).toEqual(expected)
    expect(page.filters).toEqual({ status: 'paid', filter: "currency = 'EUR'" })
  })

  it('returns only the listed columns for a SQL column list (a sparse fieldset)', async () => {
    const page = await queryPage(
      acme,
      '/api/v1/orders',
      SQL,
      "SELECT id, amount, created_at FROM orders WHERE status = 'paid'",
    )
    expect(page.data.map((e) => Object.keys(e))).toEqual(paidIds().map(() => ['id', 'amount', 'createdAt']))
    expect(ids(page)).toEqual(paidIds())
  })

  it('applies a JSONPath filter to the collection as an array, and selects inside the records', async () => {
    expect(ids(await queryPage(acme, '/api/v1/orders', JSONPATH, "$[?@.status == 'paid']"))).toEqual(
      paidIds(),
    )
    const amounts = await queryPage<number>(acme, '/api/v1/orders', JSONPATH, "$[?@.status == 'paid'].amount")
    expect(amounts.data).toEqual(orders.filter((o) => o.status === 'paid').map((o) => o.amount as number))
  })

  it('pages every media type in cursor style, `next` continuing through the stored query', async () => {
    const bodies: [string, string, string][] = [
      [FORM, 'limit=2', ''],
      [JSON_TYPE, '{"limit": 2}', ''],
      [SQL, 'SELECT * FROM orders LIMIT 2', ''],
      [JSONPATH, '$[*]', '?limit=2'],
    ]
    for (const [type, body, search] of bodies) {
      let page: Page = await queryPage(acme, `/api/v1/orders${search}`, type, body)
      const seen = [...ids(page)]
      while (page.pagination.next) {
        expect(page.pagination.next).toStartWith('/api/v1/queries/qry_')
        page = await getPage(acme, page.pagination.next)
        seen.push(...ids(page))
      }
      expect({ type, seen }).toEqual({ type, seen: orders.map((o) => o.id) })
    }
  })
})

describe('QUERY on a nested collection', () => {
  it('sees only the children of that parent, with every media type', async () => {
    const ann = await createUser(acme)
    const bob = await createUser(acme)
    const mine = [
      await createAddress(acme, ann.id, { city: 'Oslo' }),
      await createAddress(acme, ann.id, { city: 'Bergen' }),
    ]
    await createAddress(acme, bob.id, { city: 'Oslo' })
    const path = `/api/v1/users/${ann.id}/addresses`
    const expected = [mine[1]!.id, mine[0]!.id]
    expect(ids(await queryPage(acme, path, FORM, ''))).toEqual(expected)
    expect(ids(await queryPage(acme, path, JSON_TYPE, '{}'))).toEqual(expected)
    expect(ids(await queryPage(acme, path, SQL, 'SELECT * FROM addresses'))).toEqual(expected)
    expect(ids(await queryPage(acme, path, JSONPATH, '$[*]'))).toEqual(expected)
    expect(ids(await queryPage(acme, path, SQL, "SELECT id FROM addresses WHERE city = 'Oslo'"))).toEqual([
      mine[0]!.id,
    ])
    expect(ids(await queryPage(acme, path, JSONPATH, "$[?@.city == 'Oslo']"))).toEqual([mine[0]!.id])
  })
})

describe('QUERY /api/v1/search', () => {
  it('takes the GET parameters in form and JSON bodies (collection and filter)', async () => {
    const get = await getPage(
      acme,
      `/api/v1/search?collection=orders&filter=${encodeURIComponent("status = 'paid'")}`,
    )
    const form = await queryPage(
      acme,
      '/api/v1/search',
      FORM,
      `collection=orders&filter=${encodeURIComponent("status = 'paid'")}`,
    )
    const json = await queryPage(
      acme,
      '/api/v1/search',
      JSON_TYPE,
      JSON.stringify({ collection: 'orders', filter: "status = 'paid'" }),
    )
    expect(ids(get)).toEqual(paidIds())
    expect(form.data).toEqual(get.data)
    expect(json.data).toEqual(get.data)
  })

  it('lets SQL pick the collection with FROM and JSONPath with its first name', async () => {
    expect(
      ids(await queryPage(acme, '/api/v1/search', SQL, "SELECT id FROM orders WHERE status = 'paid'")),
    ).toEqual(paidIds())
    expect(ids(await queryPage(acme, '/api/v1/search', JSONPATH, "$.orders[?@.status == 'paid']"))).toEqual(
      paidIds(),
    )
  })
})
