import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  createProduct,
  createUser,
  type Entity,
  expectError,
  ISO_MS,
  idPattern,
  type ListBody,
  productBody,
  readJson,
  userBody,
} from './fixtures.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
})
afterAll(() => server.stop())

/** A valid creation body for each top-level writable collection. */
const creations: { collection: string; prefix: string; body: () => Record<string, unknown> }[] = [
  { collection: 'users', prefix: 'usr', body: () => ({ ...userBody(), role: 'admin' }) },
  { collection: 'products', prefix: 'prd', body: () => ({ ...productBody(), description: 'Blue' }) },
  {
    collection: 'orders',
    prefix: 'ord',
    body: () => ({ userId, status: 'paid', amount: 4200, currency: 'USD' }),
  },
  {
    collection: 'posts',
    prefix: 'pst',
    body: () => ({ authorId: userId, title: 'On APIs', body: 'Text', published: true }),
  },
]

describe('POST /api/v1/{collection}', () => {
  for (const { collection, prefix, body } of creations) {
    it(`creates a record in ${collection}: 201, Location, TypeID id, timestamps, and the body a GET returns`, async () => {
      const sent = body()
      const response = await acme.fetch(`/api/v1/${collection}`, { method: 'POST', json: sent })
      expect(response.status).toBe(201)
      expect(response.headers.get('content-type')).toStartWith('application/json')
      const created = await readJson(response)
      expect(created.id).toMatch(idPattern(prefix))
      expect(response.headers.get('location')).toBe(`/api/v1/${collection}/${created.id}`)
      expect(created).toMatchObject(sent)
      expect(created.createdAt).toMatch(ISO_MS)
      expect(created.updatedAt).toBe(created.createdAt as string)
      expect(Math.abs(Date.parse(created.createdAt as string) - Date.now())).toBeLessThan(60_000)
      const fetched = await acme.fetch(response.headers.get('location')!)
      expect(fetched.status).toBe(200)
      expect(await fetched.json()).toEqual(created)
    })
  }

  it('gives every record its own id, never a sequential integer', async () => {
    const a = await createProduct(acme)
    const b = await createProduct(acme)
    expect(a.id).not.toBe(b.id)
    expect(a.id).toMatch(idPattern('prd'))
    expect(Number.isNaN(Number(a.id))).toBe(true)
  })

  const defaults: { collection: string; body: () => Record<string, unknown>; expected: object }[] = [
    { collection: 'users', body: userBody, expected: { role: 'member' } },
    { collection: 'products', body: productBody, expected: { active: true, description: null } },
    {
      collection: 'orders',
      body: () => ({ userId, amount: 1, currency: 'EUR' }),
      expected: { status: 'pending' },
    },
    {
      collection: 'posts',
      body: () => ({ authorId: userId, title: 'T' }),
      expected: { published: false, body: '' },
    },
  ]
  for (const { collection, body, expected } of defaults) {
    it(`applies the defaults of ${collection} to omitted fields: ${JSON.stringify(expected)}`, async () => {
      const response = await acme.fetch(`/api/v1/${collection}`, { method: 'POST', json: body() })
      expect(response.status).toBe(201)
      expect(await response.json()).toMatchObject(expected)
    })
  }
})

describe('GET /api/v1/products', () => {
  let shop: Tenant
  let made: Entity[]
  let newestFirst: Entity[]

  beforeAll(async () => {
    shop = await server.tenant()
    made = []
    for (let i = 0; i < 25; i++) made.push(await createProduct(shop, { name: `Item ${i}` }))
    // Newest first, ties (records of one millisecond) broken by id, descending.
    newestFirst = made
      .map((p) => [p.createdAt as string, p.id, p] as const)
      .sort(([a, x], [b, y]) => (a === b ? (x < y ? 1 : -1) : a < b ? 1 : -1))
      .map(([, , p]) => p)
  })

  it('answers the envelope {data, pagination} in cursor style with the default limit 20, newest first', async () => {
    const response = await shop.fetch('/api/v1/products')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    const body = await readJson<ListBody>(response)
    expect(Object.keys(body).sort()).toEqual(['data', 'pagination'])
    expect(Object.keys(body.pagination).sort()).toEqual(['hasMore', 'limit', 'next', 'nextCursor'])
    expect(body.pagination.limit).toBe(20)
    expect(body.pagination.hasMore).toBe(true)
    expect(body.pagination.nextCursor).toBeString()
    expect(body.data).toHaveLength(20)
    expect(body.data).toEqual(newestFirst.slice(0, 20))
  })

  it('visits every record exactly once, newest first, following next with limit=7', async () => {
    const seen: Entity[] = []
    const sizes: number[] = []
    let path: string | null = '/api/v1/products?limit=7'
    while (path !== null) {
      const response = await shop.fetch(path)
      expect(response.status).toBe(200)
      const body: ListBody = await readJson<ListBody>(response)
      sizes.push(body.data.length)
      seen.push(...body.data)
      expect(body.pagination.limit).toBe(7)
      expect(body.pagination.hasMore).toBe(body.pagination.next !== null)
      if (body.pagination.next !== null) {
        expect(body.pagination.next).toStartWith('/api/v1/products?')
        expect(new URL(body.pagination.next, server.url).searchParams.get('cursor')).toBe(
          body.pagination.nextCursor,
        )
      } else {
        expect(body.pagination.nextCursor).toBeNull()
      }
      path = body.pagination.next
    }
    expect(sizes).toEqual([7, 7, 7, 4])
    expect(seen.map((p) => p.id)).toEqual(newestFirst.map((p) => p.id))
  })

  it('answers the last page with hasMore false and no next', async () => {
    const body = await readJson<ListBody>(await shop.fetch('/api/v1/products?limit=100'))
    expect(body.data).toHaveLength(25)
    expect(body.pagination).toEqual({ limit: 100, hasMore: false, nextCursor: null, next: null })
  })

  it.each(['1', '100'])('accepts limit=%s', async (limit) => {
    const response = await shop.fetch(`/api/v1/products?limit=${limit}`)
    expect(response.status).toBe(200)
    const body = await readJson<ListBody>(response)
    expect(body.pagination.limit).toBe(Number(limit))
    expect(body.data).toHaveLength(Math.min(Number(limit), 25))
  })

  it.each(['0', '-1', '101', 'abc', '1.5', ''])(
    'rejects limit=%s with 400 and a detail naming limit',
    async (limit) => {
      const response = await shop.fetch(`/api/v1/products?limit=${encodeURIComponent(limit)}`)
      await expectError(response, 400, 'BAD_REQUEST', ['limit'])
    },
  )

  it('rejects an unknown query parameter with 400 and a detail naming it', async () => {
    const response = await shop.fetch('/api/v1/products?limit=5&colour=blue')
    await expectError(response, 400, 'BAD_REQUEST', ['colour'])
  })

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await shop.fetch('/api/v1/products?limit=3')
    const text = await get.text()
    const head = await shop.fetch('/api/v1/products?limit=3', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength))
    expect(await head.text()).toBe('')
  })

  it('rejects a cursor that was tampered with, with 400 naming cursor', async () => {
    const first = await readJson<ListBody>(await shop.fetch('/api/v1/products?limit=2'))
    const cursor = first.pagination.nextCursor!
    const forged = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`
    await expectError(await shop.fetch(`/api/v1/products?cursor=${forged}`), 400, 'BAD_REQUEST', ['cursor'])
  })

  it('rejects a cursor of another collection with 400 naming cursor', async () => {
    const first = await readJson<ListBody>(await shop.fetch('/api/v1/products?limit=2'))
    const response = await shop.fetch(`/api/v1/users?cursor=${first.pagination.nextCursor}`)
    await expectError(response, 400, 'BAD_REQUEST', ['cursor'])
  })
})
