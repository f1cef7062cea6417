import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { entityTag } from '../../server/http/etag.ts'
import {
  createLineItem,
  createOrder,
  createUser,
  type Entity,
  expectError,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
})
afterAll(() => server.stop())

/** What the database holds about a record: its row and how many events name it. */
async function stored(table: string, id: string) {
  const row = await server.sql.get(`SELECT * FROM ${table} WHERE id = ?`, id)
  const { n } = (await server.sql.get('SELECT count(*) AS n FROM events WHERE resource_id = ?', id)) as {
    n: number
  }
  return { row, events: n }
}

async function currentTag(path: string): Promise<string> {
  const response = await acme.fetch(path)
  expect(response.status).toBe(200)
  return response.headers.get('etag')!
}

const writes: { method: 'PATCH' | 'PUT' | 'DELETE'; json: () => object | undefined; status: number }[] = [
  { method: 'PATCH', json: () => ({ amount: 999 }), status: 200 },
  { method: 'PUT', json: () => ({ userId, status: 'paid', amount: 5, currency: 'USD' }), status: 200 },
  { method: 'DELETE', json: () => undefined, status: 204 },
]

describe('If-Match on PUT, PATCH and DELETE /api/v1/orders/{id}', () => {
  for (const { method, json, status } of writes) {
    it(`answers ${method} with a stale If-Match with 412 PRECONDITION_FAILED and changes nothing`, async () => {
      const order = await createOrder(acme, { userId })
      const path = `/api/v1/orders/${order.id}`
      const stale = await currentTag(path)
      const patched = await acme.fetch(path, { method: 'PATCH', json: { amount: 4321 } })
      expect(patched.status).toBe(200)
      const before = await stored('orders', order.id)
      const response = await acme.fetch(path, { method, json: json(), headers: { 'If-Match': stale } })
      await expectError(response, 412, 'PRECONDITION_FAILED', ['If-Match'])
      expect(await stored('orders', order.id)).toEqual(before)
      expect(await currentTag(path)).toBe(patched.headers.get('etag')!)
    })

    it(`applies ${method} with the current ETag as If-Match`, async () => {
      const order = await createOrder(acme, { userId })
      const path = `/api/v1/orders/${order.id}`
      const response = await acme.fetch(path, {
        method,
        json: json(),
        headers: { 'If-Match': await currentTag(path) },
      })
      expect(response.status).toBe(status)
      expect((await stored('orders', order.id)).events).toBe(2)
    })
  }

  const headers: [label: string, header: (tag: string) => string, status: number][] = [
    ['*', () => '*', 200],
    ['a list holding the current tag', (tag) => `"nope", ${tag}`, 200],
    ['the weak form of the current tag (If-Match compares strongly)', (tag) => `W/${tag}`, 412],
    ['another tag', () => '"nope"', 412],
  ]
  for (const [label, header, status] of headers) {
    it(`answers PATCH with If-Match: ${label} with ${status}`, async () => {
      const order = await createOrder(acme, { userId })
      const path = `/api/v1/orders/${order.id}`
      const response = await acme.fetch(path, {
        method: 'PATCH',
        json: { amount: 7 },
        headers: { 'If-Match': header(await currentTag(path)) },
      })
      expect(response.status).toBe(status)
      expect((await stored('orders', order.id)).events).toBe(status === 200 ? 2 : 1)
    })
  }

  it('checks If-Match on a nested singleton too', async () => {
    const order = await createOrder(acme, { userId })
    const item = await createLineItem(acme, order.id)
    const path = `/api/v1/orders/${order.id}/line-items/${item.id}`
    const before = await stored('line_items', item.id)
    const stale = await acme.fetch(path, {
      method: 'PATCH',
      json: { quantity: 9 },
      headers: { 'If-Match': '"nope"' },
    })
    await expectError(stale, 412, 'PRECONDITION_FAILED', ['If-Match'])
    expect(await stored('line_items', item.id)).toEqual(before)
    const fresh = await acme.fetch(path, {
      method: 'PATCH',
      json: { quantity: 9 },
      headers: { 'If-Match': await currentTag(path) },
    })
    expect(fresh.status).toBe(200)
    expect((await readJson(fresh)).quantity).toBe(9)
  })
})

describe('ETag of writes', () => {
  it('answers POST, PATCH and PUT with the ETag the following GET has', async () => {
    const created = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 10, currency: 'EUR' },
    })
    expect(created.status).toBe(201)
    const createdText = await created.text()
    const { id } = JSON.parse(createdText) as Entity
    const path = `/api/v1/orders/${id}`
    expect(created.headers.get('etag')).toBe(entityTag(createdText))
    expect(created.headers.get('etag')).toBe(await currentTag(path))
    for (const [method, json] of [
      ['PATCH', { amount: 11 }],
      ['PUT', { userId, amount: 12, currency: 'EUR' }],
    ] as const) {
      const response = await acme.fetch(path, { method, json })
      expect(response.status).toBe(200)
      const tag = response.headers.get('etag')!
      expect(tag).toBe(entityTag(await response.text()))
      expect(tag).toBe(await currentTag(path))
      // The new tag is the one a following conditional write needs.
      const next = await acme.fetch(path, {
        method: 'PATCH',
        json: { amount: 13 },
        headers: { 'If-Match': tag },
      })
      expect(next.status).toBe(200)
    }
  })
})
