import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createOrder, createUser, type Entity, expectError } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { CSV, csvRows, NDJSON, nextLink } from './support.ts'

let server: TestServer
let shop: Tenant
let user: Entity
const orders: Entity[] = []

beforeAll(async () => {
  server = await startTestServer()
  shop = await server.tenant()
  user = await createUser(shop, { name: 'Grace' })
  for (let i = 0; i < 12; i++)
    orders.push(
      await createOrder(shop, { userId: user.id, amount: 10 * i, status: i % 2 ? 'paid' : 'pending' }),
    )
})
afterAll(() => server.stop())

const queryAs = (accept: string, type: string, body: string, path = '/api/v2/orders') =>
  shop.fetch(path, { method: 'QUERY', headers: { Accept: accept, 'Content-Type': type }, body })

describe('QUERY on a collection with Accept: text/csv', () => {
  const bodies: { name: string; type: string; body: string; header: string[] }[] = [
    {
      name: 'a SQL body, its column list in its order',
      type: 'application/sql',
      body: "SELECT status, id, amount FROM orders WHERE status = 'paid' LIMIT 4",
      header: ['status', 'id', 'amount.value', 'amount.currency'],
    },
    {
      name: 'a form body with fields and expand',
      type: 'application/x-www-form-urlencoded',
      body: 'status=paid&limit=4&fields=id,user.name&expand=user',
      header: ['id', 'user.id', 'user.name'],
    },
    {
      name: 'a JSON body',
      type: 'application/json',
      body: '{"status": "paid", "limit": 4}',
      header: ['id', 'userId', 'status', 'amount.value', 'amount.currency', 'createdAt', 'updatedAt'],
    },
  ]
  for (const { name, type, body, header } of bodies) {
    it(`answers ${name} as CSV, and its Link walks the stored query to the end`, async () => {
      const response = await queryAs('text/csv', type, body)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe(CSV)
      expect(response.headers.get('vary')).toContain('Accept')
      const rows = csvRows(await response.text())
      expect(rows[0]).toEqual(header)
      let next = nextLink(response.headers.get('link'))
      expect(next).toStartWith('/api/v2/queries/qry_')
      while (next !== null) {
        const page = await shop.fetch(next, { headers: { Accept: 'text/csv' } })
        expect(page.headers.get('content-type')).toBe(CSV)
        const [again, ...more] = csvRows(await page.text())
        expect(again).toEqual(header)
        rows.push(...more)
        next = nextLink(page.headers.get('link'))
      }
      const ids = rows.slice(1).map((row) => row[header.indexOf('id')])
      const paid = orders.filter((o) => o.status === 'paid').map((o) => o.id)
      expect(ids.sort()).toEqual(paid.sort())
    })
  }

  it('keeps the CSV answer at Content-Location, as it was sent', async () => {
    const response = await queryAs('text/csv', 'application/sql', 'SELECT id FROM orders LIMIT 3')
    const text = await response.text()
    const kept = await shop.fetch(response.headers.get('content-location')!)
    expect(kept.status).toBe(200)
    expect(kept.headers.get('content-type')).toBe(CSV)
    expect(kept.headers.get('etag')).toBe(response.headers.get('etag'))
    expect(kept.headers.get('link')).toBe(response.headers.get('link'))
    expect(await kept.text()).toBe(text)
  })

  it('answers NDJSON, and a JSONPath body as NDJSON nodes but not as CSV (406)', async () => {
    const ndjson = await queryAs(NDJSON, 'application/sql', 'SELECT id FROM orders LIMIT 2')
    expect(ndjson.headers.get('content-type')).toBe(NDJSON)
    expect(
      (await ndjson.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ id: orders[11]!.id }, { id: orders[10]!.id }])
    const nodes = await queryAs(NDJSON, 'application/jsonpath', '$[*].id', '/api/v2/orders?limit=2')
    expect(nodes.status).toBe(200)
    expect(
      (await nodes.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([orders[11]!.id, orders[10]!.id])
    await expectError(await queryAs('text/csv', 'application/jsonpath', '$[*].id'), 406, 'NOT_ACCEPTABLE', [
      'Accept',
    ])
  })

  it('answers a search across collections as JSON whatever Accept says, as /search always has', async () => {
    const response = await queryAs(
      'text/csv',
      'application/x-www-form-urlencoded',
      'q=Grace',
      '/api/v2/search',
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
  })
})
