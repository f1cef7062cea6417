import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  createLineItem,
  createOrder,
  createProduct,
  createUser,
  type Entity,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectBadParam, ids, list, newestFirst } from './helpers.ts'

let server: TestServer
let acme: Tenant
let other: Tenant
let orders: Entity[]
let products: Entity[]
let orderA: Entity
let orderB: Entity
/** The first page's cursor of GET /api/v1/orders?limit=5. */
let cursor: string
let secondCursor: string

const base64url = (text: string) => Buffer.from(text).toString('base64url')
/** Another character at `index`, still of the base64url alphabet. */
const flip = (text: string, index: number) =>
  text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1)

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  other = await server.tenant()
  const userId = (await createUser(acme)).id
  orders = []
  for (let i = 0; i < 12; i++) orders.push(await createOrder(acme, { userId, amount: 100 * (i % 3) }))
  ;[orderA, orderB] = [orders[0]!, orders[1]!]
  products = []
  for (let i = 0; i < 6; i++) products.push(await createProduct(acme, { name: `Lamp ${i}` }))
  for (const order of [orderA, orderB])
    for (let i = 0; i < 3; i++) await createLineItem(acme, order.id, { productId: products[0]!.id })
  for (let i = 0; i < 3; i++) await createOrder(other)
  const first = await list(acme, '/api/v1/orders?limit=5')
  cursor = first.pagination.nextCursor as string
  secondCursor = (await list(acme, `/api/v1/orders?limit=5&cursor=${cursor}`)).pagination.nextCursor as string
})
afterAll(() => server.stop())

/** A 400 naming `cursor` that leaks no records. */
async function expectCursorRejected(response: Response) {
  const body = await expectBadParam(response, 'cursor')
  expect(body).not.toHaveProperty('data')
}

describe('GET /api/v1/orders with a changed cursor', () => {
  // 16 bytes take 22 base64url characters, the last with 4 unused bits: set, they spell the same bytes.
  const spareBitsSet = (c: string) => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    return c.slice(0, -1) + alphabet[alphabet.indexOf(c.at(-1)!) | 1]
  }
  const mutations: [label: string, change: (cursor: string) => string][] = [
    ['the first character of the signature flipped', (c) => flip(c, c.indexOf('.') + 1)],
    ['a character in the middle of the signature flipped', (c) => flip(c, c.indexOf('.') + 8)],
    ['the first character of the payload flipped', (c) => flip(c, 0)],
    ['a character in the middle of the payload flipped', (c) => flip(c, Math.floor(c.indexOf('.') / 2))],
    [
      'another payload under the same signature',
      (c) => `${base64url('["2000-01-01T00:00:00.000Z","ord_x"]')}.${c.split('.')[1]}`,
    ],
    ["the signature of the next page's cursor", (c) => `${c.split('.')[0]}.${secondCursor.split('.')[1]}`],
    ['the signature dropped', (c) => c.split('.')[0]!],
    ['an empty signature', (c) => `${c.split('.')[0]}.`],
    ['a third segment', (c) => `${c}.x`],
    ['padding after the signature', (c) => `${c}=`],
    ['a second spelling of the signature (its unused last bits set)', (c) => spareBitsSet(c)],
    ['a stray character inside the signature', (c) => `${c.slice(0, -4)}!${c.slice(-4)}`],
    ['a truncated signature', (c) => c.slice(0, -2)],
    ['plain text', () => 'not-a-cursor'],
    ['a lone dot', () => '.'],
    ['a very long value', (c) => c + 'A'.repeat(3000)],
  ]
  for (const [label, change] of mutations) {
    it(`rejects a cursor with ${label} with 400 naming cursor`, async () => {
      const changed = change(cursor)
      expect(changed).not.toBe(cursor)
      await expectCursorRejected(
        await acme.fetch(`/api/v1/orders?limit=5&cursor=${encodeURIComponent(changed)}`),
      )
    })
  }

  it('accepts the unchanged cursor (the control for the cases above)', async () => {
    const body = await list(acme, `/api/v1/orders?limit=5&cursor=${cursor}`)
    expect(ids(body.data)).toEqual(ids(newestFirst(orders).slice(5, 10)))
  })
})

describe('GET /api/v1/orders with a cursor made for another query', () => {
  const reuses: [label: string, path: () => string][] = [
    ['another sort', () => `/api/v1/orders?sort=-amount&cursor=${cursor}`],
    ['the same field ascending', () => `/api/v1/orders?sort=created_at&cursor=${cursor}`],
    ['a filter', () => `/api/v1/orders?status=pending&cursor=${cursor}`],
    ['a filter every record matches', () => `/api/v1/orders?amount_gte=0&cursor=${cursor}`],
    ['another collection', () => `/api/v1/products?cursor=${cursor}`],
    ['a nested collection', () => `/api/v1/orders/${orderA.id}/line-items?cursor=${cursor}`],
  ]
  for (const [label, path] of reuses) {
    it(`rejects the cursor with ${label} with 400 naming cursor`, async () => {
      await expectCursorRejected(await acme.fetch(path()))
    })
  }

  it('accepts the cursor with another limit: it continues right after the last record', async () => {
    const body = await list(acme, `/api/v1/orders?limit=3&cursor=${cursor}`)
    expect(ids(body.data)).toEqual(ids(newestFirst(orders).slice(5, 8)))
  })

  it('accepts the cursor with the default sort spelled out (sort=-created_at)', async () => {
    const body = await list(acme, `/api/v1/orders?limit=5&sort=-created_at&cursor=${cursor}`)
    expect(ids(body.data)).toEqual(ids(newestFirst(orders).slice(5, 10)))
  })

  it('rejects a cursor of one search with another q, or without q', async () => {
    const page = await list(acme, '/api/v1/products?q=lamp&limit=2')
    const lampCursor = page.pagination.nextCursor as string
    expect(lampCursor).toBeString()
    await expectCursorRejected(await acme.fetch(`/api/v1/products?q=lam&limit=2&cursor=${lampCursor}`))
    await expectCursorRejected(await acme.fetch(`/api/v1/products?limit=2&cursor=${lampCursor}`))
    const next = await list(acme, `/api/v1/products?q=lamp&limit=2&cursor=${lampCursor}`)
    expect(ids(next.data)).toEqual(ids(newestFirst(products).slice(2, 4)))
  })

  it("rejects the cursor of one order's line items on another order's", async () => {
    const page = await list(acme, `/api/v1/orders/${orderA.id}/line-items?limit=1`)
    const itemCursor = page.pagination.nextCursor as string
    await expectCursorRejected(
      await acme.fetch(`/api/v1/orders/${orderB.id}/line-items?limit=1&cursor=${itemCursor}`),
    )
    expect(
      (await acme.fetch(`/api/v1/orders/${orderA.id}/line-items?limit=1&cursor=${itemCursor}`)).status,
    ).toBe(200)
  })
})

describe('GET /api/v1/orders across organizations', () => {
  it("rejects another organization's cursor with 400 naming cursor, never with its data", async () => {
    const response = await other.fetch(`/api/v1/orders?limit=5&cursor=${cursor}`)
    await expectCursorRejected(response)
  })

  it("rejects another organization's record as after with 400 naming after", async () => {
    const response = await other.fetch(`/api/v1/orders?after=${orders[3]!.id}`)
    const body = await expectBadParam(response, 'after')
    expect(body).not.toHaveProperty('data')
  })

  it("answers the other organization's own cursor with its own records only", async () => {
    const first = await list(other, '/api/v1/orders?limit=1')
    const rest = await other.fetch(first.pagination.next!)
    const body = await readJson<{ data: Entity[] }>(rest)
    const mine = new Set(ids(orders))
    expect(body.data.length).toBe(1)
    for (const record of [...first.data, ...body.data]) expect(mine.has(record.id)).toBe(false)
  })
})
