import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  addressBody,
  createAddress,
  createComment,
  createLineItem,
  createOrder,
  createPost,
  createProduct,
  createUser,
  type Entity,
  expectAllow,
  expectError,
  idPattern,
  type ListBody,
  listEvents,
  readJson,
} from './fixtures.ts'

let server: TestServer
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
})
afterAll(() => server.stop())

interface Family {
  parent: string
  child: string
  prefix: string
  parentField: string
  makeParent: (t: Tenant) => Promise<Entity>
  makeChild: (t: Tenant, parentId: string) => Promise<Entity>
  body: (t: Tenant) => Promise<Record<string, unknown>>
  patch: Record<string, unknown>
}

const families: Family[] = [
  {
    parent: 'users',
    child: 'addresses',
    prefix: 'adr',
    parentField: 'userId',
    makeParent: (t) => createUser(t),
    makeChild: (t, id) => createAddress(t, id),
    body: async () => addressBody(),
    patch: { city: 'Hamburg' },
  },
  {
    parent: 'orders',
    child: 'line-items',
    prefix: 'lit',
    parentField: 'orderId',
    makeParent: (t) => createOrder(t),
    makeChild: (t, id) => createLineItem(t, id),
    body: async (t) => ({ productId: (await createProduct(t)).id, quantity: 3, unitPrice: 250 }),
    patch: { quantity: 9 },
  },
  {
    parent: 'posts',
    child: 'comments',
    prefix: 'cmt',
    parentField: 'postId',
    makeParent: (t) => createPost(t),
    makeChild: (t, id) => createComment(t, id),
    body: async (t) => ({ authorId: (await createUser(t)).id, text: 'Agreed' }),
    patch: { text: 'Edited' },
  },
]

for (const f of families) {
  const nested = (parentId: string, childId?: string) =>
    `/api/v1/${f.parent}/${parentId}/${f.child}${childId ? `/${childId}` : ''}`

  describe(`/api/v1/${f.parent}/{id}/${f.child}`, () => {
    it('creates a child: 201, Location at the standalone path, the parent id filled in', async () => {
      const parent = await f.makeParent(acme)
      const sent = await f.body(acme)
      const response = await acme.fetch(nested(parent.id), { method: 'POST', json: sent })
      expect(response.status).toBe(201)
      const child = await readJson(response)
      expect(child.id).toMatch(idPattern(f.prefix))
      expect(child).toMatchObject({ ...sent, [f.parentField]: parent.id })
      expect(response.headers.get('location')).toBe(`/api/v1/${f.child}/${child.id}`)
      expect(await (await acme.fetch(`/api/v1/${f.child}/${child.id}`)).json()).toEqual(child)
      expect(await (await acme.fetch(nested(parent.id, child.id))).json()).toEqual(child)
    })

    it("lists only that parent's children", async () => {
      const [a, b] = [await f.makeParent(acme), await f.makeParent(acme)]
      const ofA = [await f.makeChild(acme, a.id), await f.makeChild(acme, a.id)]
      await f.makeChild(acme, b.id)
      const response = await acme.fetch(nested(a.id))
      expect(response.status).toBe(200)
      const body = await readJson<ListBody>(response)
      expect(body.data.map((c) => c.id).sort()).toEqual(ofA.map((c) => c.id).sort())
      expect(body.pagination.hasMore).toBe(false)
    })

    it('answers 404 for a child of another parent, by GET, PATCH and DELETE, and leaves it alone', async () => {
      const [a, b] = [await f.makeParent(acme), await f.makeParent(acme)]
      const child = await f.makeChild(acme, b.id)
      await expectError(await acme.fetch(nested(a.id, child.id)), 404, 'NOT_FOUND')
      const patched = await acme.fetch(nested(a.id, child.id), { method: 'PATCH', json: f.patch })
      await expectError(patched, 404, 'NOT_FOUND')
      await expectError(await acme.fetch(nested(a.id, child.id), { method: 'DELETE' }), 404, 'NOT_FOUND')
      expect(await (await acme.fetch(`/api/v1/${f.child}/${child.id}`)).json()).toEqual(child)
    })

    it('answers 403 FORBIDDEN when the parent belongs to another organization', async () => {
      const foreign = await f.makeParent(globex)
      const child = await f.makeChild(globex, foreign.id)
      const before = await server.sql.count(f.child.replace('-', '_'))
      await expectError(await acme.fetch(nested(foreign.id)), 403, 'FORBIDDEN')
      await expectError(await acme.fetch(nested(foreign.id, child.id)), 403, 'FORBIDDEN')
      const created = await acme.fetch(nested(foreign.id), { method: 'POST', json: await f.body(acme) })
      await expectError(created, 403, 'FORBIDDEN')
      expect(await server.sql.count(f.child.replace('-', '_'))).toBe(before)
    })

    it('answers 404 when the parent does not exist or its id is malformed', async () => {
      const missing = `${f.parent === 'users' ? 'usr' : f.parent === 'orders' ? 'ord' : 'pst'}_01jd3v0m7qf8s9t2w4x6y8z0ab`
      await expectError(await acme.fetch(nested(missing)), 404, 'NOT_FOUND')
      await expectError(await acme.fetch(nested('42')), 404, 'NOT_FOUND')
      const response = await acme.fetch(nested(missing), { method: 'POST', json: await f.body(acme) })
      await expectError(response, 404, 'NOT_FOUND')
    })

    it('updates a child through its nested path and deletes it there with 204', async () => {
      const parent = await f.makeParent(acme)
      const child = await f.makeChild(acme, parent.id)
      const patched = await acme.fetch(nested(parent.id, child.id), { method: 'PATCH', json: f.patch })
      expect(patched.status).toBe(200)
      expect(await patched.json()).toMatchObject({ ...f.patch, id: child.id, [f.parentField]: parent.id })
      const deleted = await acme.fetch(nested(parent.id, child.id), { method: 'DELETE' })
      expect(deleted.status).toBe(204)
      expect(await deleted.text()).toBe('')
      await expectError(await acme.fetch(`/api/v1/${f.child}/${child.id}`), 404, 'NOT_FOUND')
    })
  })

  describe(`/api/v1/${f.child}`, () => {
    it('reads and patches a child at its standalone path without naming the parent', async () => {
      const parent = await f.makeParent(acme)
      const child = await f.makeChild(acme, parent.id)
      expect(await (await acme.fetch(`/api/v1/${f.child}/${child.id}`)).json()).toEqual(child)
      const patched = await acme.fetch(`/api/v1/${f.child}/${child.id}`, { method: 'PATCH', json: f.patch })
      expect(patched.status).toBe(200)
      expect(await patched.json()).toMatchObject({ ...f.patch, [f.parentField]: parent.id })
    })

    it('lists the children of every parent of the organization', async () => {
      const [a, b] = [await f.makeParent(acme), await f.makeParent(acme)]
      const made = [await f.makeChild(acme, a.id), await f.makeChild(acme, b.id)]
      const body = await readJson<ListBody>(await acme.fetch(`/api/v1/${f.child}?limit=100`))
      expect(body.data.map((c) => c.id)).toEqual(expect.arrayContaining(made.map((c) => c.id)))
    })

    it('answers POST with 405 and Allow: children are created through their parent', async () => {
      const parent = await f.makeParent(acme)
      const before = await server.sql.count(f.child.replace('-', '_'))
      const response = await acme.fetch(`/api/v1/${f.child}`, {
        method: 'POST',
        json: { ...(await f.body(acme)), [f.parentField]: parent.id },
      })
      await expectError(response, 405, 'METHOD_NOT_ALLOWED')
      expectAllow(response, ['GET', 'HEAD', 'OPTIONS'], 'POST')
      expect(await server.sql.count(f.child.replace('-', '_'))).toBe(before)
    })
  })
}

describe('DELETE /api/v1/orders/{id}', () => {
  it('deletes its line items first, each with a line_item.deleted event, then the order', async () => {
    const order = await createOrder(acme)
    const items = [await createLineItem(acme, order.id), await createLineItem(acme, order.id)]
    await Bun.sleep(5) // so that the deletion's events are the newest, not tied with the creations
    const response = await acme.fetch(`/api/v1/orders/${order.id}`, { method: 'DELETE' })
    expect(response.status).toBe(204)
    for (const item of items)
      await expectError(await acme.fetch(`/api/v1/line-items/${item.id}`), 404, 'NOT_FOUND')
    expect(await server.sql.get('SELECT count(*) AS n FROM line_items WHERE order_id = ?', order.id)).toEqual(
      {
        n: 0,
      },
    )
    const events = (await listEvents(acme)).slice(0, 3)
    expect(events.map((e) => e.type).sort()).toEqual([
      'line_item.deleted',
      'line_item.deleted',
      'order.deleted',
    ])
    const itemEvents = events.filter((e) => e.type === 'line_item.deleted')
    expect(itemEvents.map((e) => e.resourceId).sort()).toEqual(items.map((i) => i.id).sort())
    expect(itemEvents.every((e) => e.resource === 'line-items')).toBe(true)
    expect(events.find((e) => e.type === 'order.deleted')!.data).toEqual(order)
  })
})

describe('DELETE /api/v1/users/{id}', () => {
  it('answers 409 CONFLICT while orders refer to the user, and deletes nothing', async () => {
    const user = await createUser(acme)
    const address = await createAddress(acme, user.id)
    await createOrder(acme, { userId: user.id })
    const events = await server.sql.count('events', acme.orgId)
    const response = await acme.fetch(`/api/v1/users/${user.id}`, { method: 'DELETE' })
    const error = await expectError(response, 409, 'CONFLICT')
    expect(error.error.details.map((d) => d.field)).toContain('orders')
    expect((await acme.fetch(`/api/v1/users/${user.id}`)).status).toBe(200)
    expect(await (await acme.fetch(`/api/v1/addresses/${address.id}`)).json()).toEqual(address)
    expect(await server.sql.count('events', acme.orgId)).toBe(events)
  })

  it('deletes a user with only addresses, and the addresses with it', async () => {
    const user = await createUser(acme)
    const address = await createAddress(acme, user.id)
    await Bun.sleep(5)
    expect((await acme.fetch(`/api/v1/users/${user.id}`, { method: 'DELETE' })).status).toBe(204)
    await expectError(await acme.fetch(`/api/v1/addresses/${address.id}`), 404, 'NOT_FOUND')
    const types = (await listEvents(acme)).slice(0, 2).map((e) => e.type)
    expect(types.sort()).toEqual(['address.deleted', 'user.deleted'])
  })
})

describe('DELETE /api/v1/products/{id}', () => {
  it('answers 409 CONFLICT while a line item refers to the product', async () => {
    const order = await createOrder(acme)
    const item = await createLineItem(acme, order.id)
    const response = await acme.fetch(`/api/v1/products/${item.productId}`, { method: 'DELETE' })
    await expectError(response, 409, 'CONFLICT')
    expect((await acme.fetch(`/api/v1/products/${item.productId}`)).status).toBe(200)
  })
})
