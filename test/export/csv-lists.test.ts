import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  createLineItem,
  createOrder,
  createProduct,
  createUser,
  type Entity,
  expectError,
  type ListBody,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { CSV, csvRows, NDJSON, nextLink, walkCsv } from './support.ts'

let server: TestServer
let shop: Tenant
let user: Entity
const orders: Entity[] = []

const ORDER_COLUMNS = ['id', 'userId', 'status', 'amount.value', 'amount.currency', 'createdAt', 'updatedAt']

beforeAll(async () => {
  server = await startTestServer()
  shop = await server.tenant()
  user = await createUser(shop, { name: 'Zoë, "the" buyer' })
  for (let i = 0; i < 25; i++)
    orders.push(
      await createOrder(shop, { userId: user.id, amount: 100 * i, currency: i % 2 ? 'USD' : 'EUR' }),
    )
})
afterAll(() => server.stop())

const csv = (path: string, headers: Record<string, string> = {}) =>
  shop.fetch(path, { headers: { Accept: 'text/csv', ...headers } })

describe('GET /api/v2/{collection} with Accept: text/csv', () => {
  it('answers the page as CSV: a header row of the declared fields, money flattened, CRLF line ends', async () => {
    const response = await csv('/api/v2/orders?limit=3')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(CSV)
    const text = await response.text()
    expect(text.split('\r\n')[0]).toBe(ORDER_COLUMNS.join(','))
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    const newest = orders.at(-1)!
    const [, first] = csvRows(text)
    expect(first).toEqual([
      newest.id,
      user.id,
      'pending',
      '2400',
      'EUR',
      newest.createdAt,
      newest.updatedAt,
    ] as string[])
  })

  it('answers v1 with amount and currency as the columns they are there', async () => {
    const text = await (await csv('/api/v1/orders?limit=1')).text()
    expect(csvRows(text)[0]).toEqual([
      'id',
      'userId',
      'status',
      'amount',
      'currency',
      'createdAt',
      'updatedAt',
    ])
  })

  it('has the same columns as the JSON list has values, cell for cell', async () => {
    const json = await readJson<ListBody>(await shop.fetch('/api/v2/orders?limit=10'))
    const [header, ...rows] = csvRows(await (await csv('/api/v2/orders?limit=10')).text())
    expect(header).toEqual(ORDER_COLUMNS)
    expect(rows.length).toBe(10)
    rows.forEach((row, i) => {
      const record = json.data[i]!
      const amount = record.amount as { value: number; currency: string }
      expect(row).toEqual([
        record.id,
        record.userId,
        record.status,
        String(amount.value),
        amount.currency,
        record.createdAt,
        record.updatedAt,
      ] as string[])
    })
  })

  it('writes null as an empty cell, booleans as true/false and numbers as JSON writes them', async () => {
    await createProduct(shop, { name: 'Plain', price: 0, active: false, description: null })
    const [header, row] = csvRows(await (await csv('/api/v2/products?limit=1')).text())
    const cell = (name: string) => row![header!.indexOf(name)]
    expect(header).toEqual([
      'id',
      'name',
      'sku',
      'description',
      'price.value',
      'price.currency',
      'active',
      'createdAt',
      'updatedAt',
    ])
    expect([cell('description'), cell('active'), cell('price.value')]).toEqual(['', 'false', '0'])
  })

  it('answers an empty page with its header row alone', async () => {
    const response = await csv('/api/v2/orders?status=delivered')
    expect(await response.text()).toBe(`${ORDER_COLUMNS.join(',')}\r\n`)
    expect(response.headers.get('link')).toBeNull()
  })

  it('takes its columns from fields= and expand=: an expanded reference under its name, a nested page as JSON', async () => {
    const order = orders[0]!
    const item = await createLineItem(shop, order.id)
    const path = `/api/v2/orders?fields=id,status,user.name&expand=user,lineItems&status=pending&limit=100`
    const [header, ...rows] = csvRows(await (await csv(path)).text())
    expect(header).toEqual(['id', 'status', 'user.id', 'user.name', 'lineItems'])
    const row = rows.find((r) => r[0] === order.id)!
    expect(row.slice(0, 4)).toEqual([order.id, 'pending', user.id, 'Zoë, "the" buyer'])
    const page = JSON.parse(row[4]!) as ListBody
    expect(page.data.map((i) => i.id)).toEqual([item.id])
    expect(page.data[0]!.unitPrice).toBe(500)
  })

  it('lists a nested collection as CSV', async () => {
    const order = orders[1]!
    const item = await createLineItem(shop, order.id, { quantity: 3 })
    const [header, row] = csvRows(await (await csv(`/api/v2/orders/${order.id}/line-items`)).text())
    expect(header).toEqual(['id', 'orderId', 'productId', 'quantity', 'unitPrice', 'createdAt', 'updatedAt'])
    expect(row!.slice(0, 4)).toEqual([item.id, order.id, item.productId as string, '3'])
  })

  it('sends the total as X-Total-Count when include_total=true', async () => {
    const response = await csv('/api/v2/orders?limit=5&include_total=true')
    expect(response.headers.get('x-total-count')).toBe('25')
    expect((await csv('/api/v2/orders?limit=5')).headers.get('x-total-count')).toBeNull()
  })

  it('lets a browser app on another origin read Link and X-Total-Count', async () => {
    const cors = await startTestServer({ corsOrigins: ['https://app.example'] })
    try {
      const tenant = await cors.tenant()
      await createOrder(tenant)
      const response = await tenant.fetch('/api/v2/orders?limit=1&include_total=true', {
        headers: { Accept: 'text/csv', Origin: 'https://app.example' },
      })
      const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(/,\s*/)
      expect(exposed).toEqual(expect.arrayContaining(['Link', 'X-Total-Count']))
      expect(response.headers.get('x-total-count')).toBe('1')
    } finally {
      await cors.stop()
    }
  })
})

describe('Link: the next page of a CSV export', () => {
  const styles = [
    { style: 'cursor', path: '/api/v2/orders?limit=7' },
    { style: 'keyset (after)', path: '/api/v2/orders?limit=7&sort=created_at' },
    { style: 'page', path: '/api/v2/orders?per_page=7&page=1' },
    { style: 'offset', path: '/api/v2/orders?limit=7&offset=0' },
  ]
  for (const { style, path } of styles) {
    it(`walks every page in ${style} style, every record exactly once, the header on each page`, async () => {
      const { headers, rows } = await walkCsv(shop, path)
      expect(headers.length).toBe(4)
      for (const header of headers) expect(header).toEqual(ORDER_COLUMNS)
      const ids = rows.map((r) => r[0])
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.sort()).toEqual(orders.map((o) => o.id).sort())
    })
  }

  it('keeps the successor-version link of v1 beside the next one', async () => {
    const link = (await csv('/api/v1/orders?limit=5')).headers.get('link')!
    expect(nextLink(link)).toStartWith('/api/v1/orders?limit=5&cursor=')
    expect(link).toContain('rel="successor-version"')
  })
})

describe('GET with Accept: application/x-ndjson', () => {
  it('answers one record a line, the same JSON as the list data, with Link to the next page', async () => {
    const json = await readJson<ListBody>(await shop.fetch('/api/v2/orders?limit=4&fields=id,amount'))
    const response = await shop.fetch('/api/v2/orders?limit=4&fields=id,amount', {
      headers: { Accept: 'application/x-ndjson' },
    })
    expect(response.headers.get('content-type')).toBe(NDJSON)
    const text = await response.text()
    expect(text.endsWith('\n')).toBe(true)
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(json.data)
    expect(nextLink(response.headers.get('link'))).toBe(json.pagination.next)
  })
})

describe('content negotiation on lists', () => {
  const cases: { accept: string; type: string }[] = [
    { accept: '*/*', type: 'application/json' },
    { accept: 'text/*', type: CSV },
    { accept: 'application/json;q=0.5, text/csv', type: CSV },
    { accept: 'text/csv;q=0.2, application/x-ndjson;q=0.9', type: NDJSON },
    { accept: 'text/csv;q=0, */*;q=0.1', type: 'application/json' },
    { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', type: 'application/json' },
    { accept: 'TEXT/CSV', type: CSV },
  ]
  for (const { accept, type } of cases) {
    it(`answers Accept: ${accept} with ${type}`, async () => {
      const response = await shop.fetch('/api/v2/orders?limit=1', { headers: { Accept: accept } })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toStartWith(type)
      expect(response.headers.get('vary')).toContain('Accept')
    })
  }

  for (const accept of ['application/xml', 'text/csv;q=0, application/json;q=0, application/x-ndjson;q=0']) {
    it(`answers Accept: ${accept} with 406 NOT_ACCEPTABLE naming Accept`, async () => {
      await expectError(await csv('/api/v2/orders', { Accept: accept }), 406, 'NOT_ACCEPTABLE', ['Accept'])
    })
  }
})

describe('conditional requests, HEAD and the response cache per representation', () => {
  const path = '/api/v2/orders?limit=5'

  it('gives CSV, NDJSON and JSON each its own ETag, and 304 only for the tag of the same representation', async () => {
    const tags = await Promise.all(
      ['text/csv', 'application/x-ndjson', 'application/json'].map(async (accept) => {
        const response = await shop.fetch(path, { headers: { Accept: accept } })
        return response.headers.get('etag')!
      }),
    )
    expect(new Set(tags).size).toBe(3)
    const [csvTag, , jsonTag] = tags
    const again = await csv(path, { 'If-None-Match': csvTag! })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(csvTag!)
    const other = await csv(path, { 'If-None-Match': jsonTag! })
    expect(other.status).toBe(200)
    expect(other.headers.get('content-type')).toBe(CSV)
  })

  it('answers If-Modified-Since with 304 as the JSON list does', async () => {
    const first = await csv(path)
    const since = first.headers.get('last-modified')!
    expect((await csv(path, { 'If-Modified-Since': since })).status).toBe(304)
  })

  it('answers HEAD with the headers of the CSV and no body', async () => {
    const get = await csv(path)
    const head = await shop.fetch(path, { method: 'HEAD', headers: { Accept: 'text/csv' } })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe(CSV)
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'))
    expect(head.headers.get('link')).toBe(get.headers.get('link'))
    expect(await head.text()).toBe('')
  })

  it('never serves a kept JSON answer to a CSV request or the reverse', async () => {
    const other = await server.tenant()
    await createOrder(other)
    const sequence = ['application/json', 'text/csv', 'application/json', 'application/x-ndjson', 'text/csv']
    for (let round = 0; round < 2; round++) {
      for (const accept of sequence) {
        const response = await other.fetch('/api/v2/orders', { headers: { Accept: accept } })
        const text = await response.text()
        if (accept === 'text/csv') expect(text).toStartWith('id,userId,')
        else if (accept === 'application/json') expect(JSON.parse(text).data).toHaveLength(1)
        else expect(JSON.parse(text).amount).toBeDefined()
        expect(response.headers.get('content-type')).toStartWith(accept)
      }
    }
  })
})
