import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  createAddress,
  createComment,
  createLineItem,
  createOrder,
  createPost,
  createUser,
  type Entity,
  expectError,
  type ListBody,
  readJson,
} from './fixtures.ts'

let server: TestServer
let acme: Tenant
let globex: Tenant
/** Every record each tenant made, by collection. */
const made = new Map<Tenant, Record<string, Entity[]>>()

/** One record in every writable collection, like a small organization would have. */
async function populate(t: Tenant): Promise<Record<string, Entity[]>> {
  const user = await createUser(t)
  const order = await createOrder(t, { userId: user.id })
  const item = await createLineItem(t, order.id)
  const post = await createPost(t, { authorId: user.id })
  return {
    users: [user],
    addresses: [await createAddress(t, user.id)],
    products: [(await readJson(await t.fetch(`/api/v1/products/${item.productId}`))) as Entity],
    orders: [order],
    'line-items': [item],
    posts: [post],
    comments: [await createComment(t, post.id, { authorId: user.id })],
  }
}

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
  made.set(acme, await populate(acme))
  made.set(globex, await populate(globex))
})
afterAll(() => server.stop())

const COLLECTIONS = ['users', 'addresses', 'products', 'orders', 'line-items', 'posts', 'comments']

const ids = (records: Entity[]) => records.map((r) => r.id).sort()

async function list(t: Tenant, path: string): Promise<Entity[]> {
  const response = await t.fetch(path)
  expect(response.status).toBe(200)
  return (await readJson<ListBody>(response)).data
}

describe('collections of two organizations', () => {
  for (const collection of COLLECTIONS) {
    it(`GET /api/v1/${collection} lists only the caller's records`, async () => {
      for (const t of [acme, globex]) {
        expect(ids(await list(t, `/api/v1/${collection}?limit=100`))).toEqual(ids(made.get(t)![collection]!))
      }
    })
  }

  it("GET /api/v1/events lists only events about the caller's records", async () => {
    for (const t of [acme, globex]) {
      const own = new Set(Object.values(made.get(t)!).flatMap((records) => records.map((r) => r.id)))
      const events = await list(t, '/api/v1/events?limit=100')
      expect(events.length).toBeGreaterThanOrEqual(own.size)
      for (const event of events) expect(own.has(event.resourceId as string)).toBe(true)
    }
  })
})

/** Standalone path, a valid PUT body and a valid PATCH body for a record of each collection. */
const replacements: Record<
  string,
  (r: Entity) => { put: Record<string, unknown>; patch: Record<string, unknown> }
> = {
  users: (r) => ({ put: { name: 'X', email: r.email }, patch: { name: 'X' } }),
  addresses: () => ({ put: { line1: 'X', city: 'X', country: 'FR' }, patch: { city: 'X' } }),
  products: (r) => ({ put: { name: 'X', sku: r.sku, price: 1, currency: 'EUR' }, patch: { price: 1 } }),
  orders: (r) => ({ put: { userId: r.userId, amount: 1, currency: 'EUR' }, patch: { amount: 1 } }),
  'line-items': (r) => ({
    put: { productId: r.productId, quantity: 1, unitPrice: 1 },
    patch: { quantity: 7 },
  }),
  posts: (r) => ({ put: { authorId: r.authorId, title: 'X' }, patch: { title: 'X' } }),
  comments: (r) => ({ put: { authorId: r.authorId, text: 'X' }, patch: { text: 'X' } }),
}

describe('a record of another organization', () => {
  for (const collection of COLLECTIONS) {
    it(`answers GET, HEAD, PATCH, PUT and DELETE on /api/v1/${collection}/{id} with 403, changing nothing`, async () => {
      const record = made.get(globex)![collection]![0]!
      const path = `/api/v1/${collection}/${record.id}`
      const bodies = replacements[collection]!(record)
      const before = await server.sql.get(
        `SELECT * FROM ${collection.replace('-', '_')} WHERE id = ?`,
        record.id,
      )
      const events = await server.sql.count('events')
      await expectError(await acme.fetch(path), 403, 'FORBIDDEN')
      expect((await acme.fetch(path, { method: 'HEAD' })).status).toBe(403)
      await expectError(await acme.fetch(path, { method: 'PATCH', json: bodies.patch }), 403, 'FORBIDDEN')
      await expectError(await acme.fetch(path, { method: 'PUT', json: bodies.put }), 403, 'FORBIDDEN')
      await expectError(await acme.fetch(path, { method: 'DELETE' }), 403, 'FORBIDDEN')
      expect(
        await server.sql.get(`SELECT * FROM ${collection.replace('-', '_')} WHERE id = ?`, record.id),
      ).toEqual(before)
      expect(await server.sql.count('events')).toBe(events)
      expect(await (await globex.fetch(path)).json()).toEqual(record)
    })
  }

  it('answers GET /api/v1/events/{id} of another organization with 403', async () => {
    const [event] = await list(globex, '/api/v1/events?limit=1')
    await expectError(await acme.fetch(`/api/v1/events/${event!.id}`), 403, 'FORBIDDEN')
  })

  it('is never leaked by its id in a keyset page: after= of another organization is 400 naming after', async () => {
    const foreign = made.get(globex)!.products![0]!
    await expectError(await acme.fetch(`/api/v1/products?after=${foreign.id}`), 400, 'BAD_REQUEST', ['after'])
  })
})

describe('DELETE /api/v1/posts?confirm=posts', () => {
  it("deletes only the caller's posts and their comments", async () => {
    await createPost(globex)
    const theirs = await Promise.all(
      ['posts', 'comments'].map((table) => server.sql.count(table, globex.orgId)),
    )
    const response = await acme.fetch('/api/v1/posts?confirm=posts', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe(String(made.get(acme)!.posts!.length))
    expect(
      await Promise.all(['posts', 'comments'].map((table) => server.sql.count(table, acme.orgId))),
    ).toEqual([0, 0])
    expect(
      await Promise.all(['posts', 'comments'].map((table) => server.sql.count(table, globex.orgId))),
    ).toEqual(theirs)
    expect(await list(globex, '/api/v1/posts')).toHaveLength(theirs[0]!)
  })
})
