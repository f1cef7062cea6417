import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser, type ErrorBody, readJson, unique } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
let userId: string

type Record_ = Record<string, unknown> & { id: string }
type Page = { data: Record_[]; pagination: { next: string | null } }

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
})
afterAll(() => server.stop())

async function createV2Order(amount = 1200, currency = 'EUR', headers: Record<string, string> = {}) {
  const response = await acme.fetch('/api/v2/orders', {
    method: 'POST',
    headers,
    json: { userId, status: 'paid', amount: { value: amount, currency } },
  })
  expect(response.status).toBe(201)
  return readJson<Record_>(response)
}

describe('v2 money objects: orders.amount and products.price carry their currency', () => {
  it('POST /api/v2/orders takes and answers {value, currency}; v1 reads the same order flat', async () => {
    const order = await createV2Order(1200, 'USD')
    expect(order.amount).toEqual({ value: 1200, currency: 'USD' })
    expect('currency' in order).toBe(false)
    const v1 = await readJson<Record_>(await acme.fetch(`/api/v1/orders/${order.id}`))
    expect(v1).toMatchObject({ id: order.id, amount: 1200, currency: 'USD' })
    const v2 = await readJson<Record_>(await acme.fetch(`/api/v2/orders/${order.id}`))
    expect(v2).toEqual(order)
  })

  it('a v1 client keeps writing and reading the flat fields', async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 700, currency: 'GBP' },
    })
    expect(response.status).toBe(201)
    expect(await readJson(response)).toMatchObject({ amount: 700, currency: 'GBP' })
  })

  it.each([
    ['a bare number', { amount: 1200, currency: 'EUR' }, ['amount', 'currency']],
    ['the removed currency field', { amount: { value: 1, currency: 'EUR' }, currency: 'EUR' }, ['currency']],
    ['a money object without currency', { amount: { value: 1 } }, ['amount.currency']],
    [
      'a money object with another key',
      { amount: { value: 1, currency: 'EUR', cents: 1 } },
      ['amount.cents'],
    ],
    ['a bad currency', { amount: { value: 1, currency: 'euro' } }, ['amount.currency']],
  ])('POST /api/v2/orders with %s is 422 naming the fields', async (_, body, fields) => {
    const response = await acme.fetch('/api/v2/orders', { method: 'POST', json: { userId, ...body } })
    expect(response.status).toBe(422)
    const { error } = await readJson<ErrorBody>(response)
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.details.map((d) => d.field)).toEqual(expect.arrayContaining(fields))
  })

  it('PATCH and PUT in v2 change the money object as a whole', async () => {
    const order = await createV2Order(100)
    const patched = await acme.fetch(`/api/v2/orders/${order.id}`, {
      method: 'PATCH',
      json: { amount: { value: 150, currency: 'CHF' } },
    })
    expect(patched.status).toBe(200)
    expect((await readJson<Record_>(patched)).amount).toEqual({ value: 150, currency: 'CHF' })
    const put = await acme.fetch(`/api/v2/orders/${order.id}`, {
      method: 'PUT',
      json: { userId, amount: { value: 175, currency: 'EUR' } },
    })
    expect(put.status).toBe(200)
    expect(await readJson(put)).toMatchObject({ amount: { value: 175, currency: 'EUR' }, status: 'pending' })
  })

  it('products.price is a money object too', async () => {
    const response = await acme.fetch('/api/v2/products', {
      method: 'POST',
      json: { name: 'Mug', sku: unique('MUG'), price: { value: 1299, currency: 'EUR' } },
    })
    expect(response.status).toBe(201)
    const product = await readJson<Record_>(response)
    expect(product.price).toEqual({ value: 1299, currency: 'EUR' })
    expect((await readJson<Record_>(await acme.fetch(`/api/v1/products/${product.id}`))).price).toBe(1299)
  })

  it('filters and sorts keep their names: amount_gte, currency, sort=-amount', async () => {
    const fresh = await server.tenant()
    const user = (await createUser(fresh)).id
    for (const [value, currency] of [
      [100, 'EUR'],
      [5000, 'EUR'],
      [9000, 'USD'],
    ] as const)
      await fresh.fetch('/api/v2/orders', {
        method: 'POST',
        json: { userId: user, amount: { value, currency } },
      })
    const page = await readJson<Page>(
      await fresh.fetch('/api/v2/orders?amount_gte=1000&currency=EUR&sort=-amount'),
    )
    expect(page.data.map((o) => o.amount)).toEqual([{ value: 5000, currency: 'EUR' }])
    const sorted = await readJson<Page>(await fresh.fetch('/api/v2/orders?sort=-amount'))
    expect(sorted.data.map((o) => (o.amount as { value: number }).value)).toEqual([9000, 5000, 100])
  })

  it('lists, search hits and events answer in the version asked', async () => {
    const order = await createV2Order(4321)
    const list = await readJson<Page>(await acme.fetch('/api/v2/orders?limit=100'))
    expect(list.data.find((o) => o.id === order.id)!.amount).toEqual({ value: 4321, currency: 'EUR' })
    const found = await readJson<Page>(
      await acme.fetch(`/api/v2/search?collection=orders&filter=${encodeURIComponent('amount = 4321')}`),
    )
    expect(found.data[0]!.amount).toEqual({ value: 4321, currency: 'EUR' })
    const sku = unique('SEARCHME')
    await acme.fetch('/api/v2/products', {
      method: 'POST',
      json: { name: 'Teapot', sku, price: { value: 2500, currency: 'EUR' } },
    })
    const hits = await readJson<{ data: { collection: string; record: Record_ }[] }>(
      await acme.fetch(`/api/v2/search?q=${sku}`),
    )
    expect(hits.data[0]!.record.price).toEqual({ value: 2500, currency: 'EUR' })
    const events = await readJson<Page>(await acme.fetch(`/api/v2/events?resource_id=${order.id}`))
    expect((events.data[0]!.data as Record_).amount).toEqual({ value: 4321, currency: 'EUR' })
    const v1Events = await readJson<Page>(await acme.fetch(`/api/v1/events?resource_id=${order.id}`))
    expect((v1Events.data[0]!.data as Record_).amount).toBe(4321)
  })

  it('an Idempotency-Key replays the answer in the shape of its version', async () => {
    const key = unique('idem')
    const first = await createV2Order(999, 'EUR', { 'Idempotency-Key': key })
    const again = await acme.fetch('/api/v2/orders', {
      method: 'POST',
      headers: { 'Idempotency-Key': key },
      json: { userId, status: 'paid', amount: { value: 999, currency: 'EUR' } },
    })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await readJson(again)).toEqual(first)
  })
})

describe('conditional requests per version', () => {
  it('ETags differ between versions; 304 and If-Match work with the version’s own tag', async () => {
    const order = await createV2Order(300)
    const v1 = await acme.fetch(`/api/v1/orders/${order.id}`)
    const v2 = await acme.fetch(`/api/v2/orders/${order.id}`)
    const [tag1, tag2] = [v1.headers.get('etag')!, v2.headers.get('etag')!]
    expect(tag1).not.toBe(tag2)
    const revalidated = await acme.fetch(`/api/v2/orders/${order.id}`, { headers: { 'If-None-Match': tag2 } })
    expect(revalidated.status).toBe(304)
    const stale = await acme.fetch(`/api/v2/orders/${order.id}`, {
      method: 'PATCH',
      headers: { 'If-Match': tag1 },
      json: { status: 'shipped' },
    })
    expect(stale.status).toBe(412)
    const fresh = await acme.fetch(`/api/v2/orders/${order.id}`, {
      method: 'PATCH',
      headers: { 'If-Match': tag2 },
      json: { status: 'shipped' },
    })
    expect(fresh.status).toBe(200)
    // The ETag a write answers is the one the next v2 GET gives.
    const next = await acme.fetch(`/api/v2/orders/${order.id}`)
    expect(fresh.headers.get('etag')).toBe(next.headers.get('etag'))
    const v1Tag = (await acme.fetch(`/api/v1/orders/${order.id}`)).headers.get('etag')!
    const deleted = await acme.fetch(`/api/v1/orders/${order.id}`, {
      method: 'DELETE',
      headers: { 'If-Match': v1Tag },
    })
    expect(deleted.status).toBe(204)
  })
})

describe('QUERY in v2', () => {
  const query = (path: string, type: string, body: string) =>
    acme.fetch(path, { method: 'QUERY', headers: { 'Content-Type': type }, body })

  it('JSON and SQL bodies answer v2 records; a column list picks v2 fields', async () => {
    const order = await createV2Order(8765, 'SEK')
    const json = await query(
      '/api/v2/orders',
      'application/json',
      JSON.stringify({ amount_gte: 8765, currency: 'SEK' }),
    )
    expect(json.status).toBe(200)
    expect((await readJson<Page>(json)).data.map((o) => o.id)).toEqual([order.id])
    const sql = await query(
      '/api/v2/orders',
      'application/sql',
      "SELECT id, amount FROM orders WHERE currency = 'SEK'",
    )
    expect((await readJson<Page>(sql)).data).toEqual([
      { id: order.id, amount: { value: 8765, currency: 'SEK' } },
    ])
  })

  it('JSONPath sees the v2 record: @.amount.value and @.amount.currency', async () => {
    const order = await createV2Order(6543, 'NOK')
    const response = await query(
      '/api/v2/orders',
      'application/jsonpath',
      "$[?@.amount.currency == 'NOK' && @.amount.value > 6000].amount",
    )
    expect(response.status).toBe(200)
    expect((await readJson<{ data: unknown[] }>(response)).data).toEqual([{ value: 6543, currency: 'NOK' }])
    const v1 = await query('/api/v1/orders', 'application/jsonpath', "$[?@.currency == 'NOK'].id")
    expect((await readJson<{ data: unknown[] }>(v1)).data).toEqual([order.id])
  })

  it('a stored query answers in the version it is fetched through', async () => {
    await createV2Order(1111, 'DKK')
    const response = await query('/api/v1/orders', 'application/json', JSON.stringify({ currency: 'DKK' }))
    const location = response.headers.get('location')!
    expect(location).toStartWith('/api/v1/queries/')
    const v1 = await readJson<Page>(await acme.fetch(location))
    expect(v1.data[0]!.amount).toBe(1111)
    const v2 = await readJson<Page>(await acme.fetch(location.replace('/api/v1/', '/api/v2/')))
    expect(v2.data[0]!.amount).toEqual({ value: 1111, currency: 'DKK' })
    const result = response.headers.get('content-location')!
    expect((await acme.fetch(result)).status).toBe(200)
    expect((await acme.fetch(result.replace('/api/v1/', '/api/v2/'))).status).toBe(404)
  })
})
