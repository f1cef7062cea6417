import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  createLineItem,
  createOrder,
  createProduct,
  createUser,
  expectError,
  type ListBody,
  listEvents,
  readJson,
} from './fixtures.ts'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe('DELETE /api/v1/products', () => {
  it.each([
    ['no confirm', ''],
    ['confirm naming another collection', '?confirm=orders'],
    ['confirm in another letter case', '?confirm=Products'],
    ['an empty confirm', '?confirm='],
  ])('rejects %s with 400 naming confirm and deletes nothing', async (_, query) => {
    const t = await server.tenant()
    await createProduct(t)
    const response = await t.fetch(`/api/v1/products${query}`, { method: 'DELETE' })
    await expectError(response, 400, 'BAD_REQUEST', ['confirm'])
    expect(await server.sql.count('products', t.orgId)).toBe(1)
  })

  it('rejects an unknown query parameter next to confirm with 400 naming it', async () => {
    const t = await server.tenant()
    await createProduct(t)
    const response = await t.fetch('/api/v1/products?confirm=products&colour=red', { method: 'DELETE' })
    await expectError(response, 400, 'BAD_REQUEST', ['colour'])
    expect(await server.sql.count('products', t.orgId)).toBe(1)
  })

  it('deletes every product with confirm=products: 204, Deleted-Count, an empty list, one event each', async () => {
    const t = await server.tenant()
    const products = [await createProduct(t), await createProduct(t), await createProduct(t)]
    const response = await t.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('3')
    expect(await response.text()).toBe('')
    const list = await readJson<ListBody>(await t.fetch('/api/v1/products'))
    expect(list.data).toEqual([])
    const deletions = (await listEvents(t)).filter((e) => e.type === 'product.deleted')
    expect(deletions.map((e) => e.resourceId).sort()).toEqual(products.map((p) => p.id).sort())
    for (const event of deletions) {
      expect(event.resource).toBe('products')
      expect(event.data).toEqual(products.find((p) => p.id === event.resourceId)!)
    }
  })

  it('answers Deleted-Count: 0 for an empty collection', async () => {
    const t = await server.tenant()
    const response = await t.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('0')
  })

  it('deletes more records than one internal batch', async () => {
    const t = await server.tenant()
    for (let i = 0; i < 510; i++) await createProduct(t)
    const response = await t.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('510')
    expect(await server.sql.count('products', t.orgId)).toBe(0)
  }, 60_000)
})

describe('DELETE /api/v1/users', () => {
  it('answers 409 when one user is still referenced, and deletes none of them', async () => {
    const t = await server.tenant()
    await createUser(t)
    await createOrder(t)
    const events = await server.sql.count('events', t.orgId)
    const response = await t.fetch('/api/v1/users?confirm=users', { method: 'DELETE' })
    await expectError(response, 409, 'CONFLICT')
    expect(await server.sql.count('users', t.orgId)).toBe(2)
    expect(await server.sql.count('events', t.orgId)).toBe(events)
  })
})

describe('DELETE /api/v1/orders/{id}/line-items', () => {
  it("deletes only that order's line items with confirm=line-items", async () => {
    const t = await server.tenant()
    const [a, b] = [await createOrder(t), await createOrder(t)]
    await createLineItem(t, a.id)
    await createLineItem(t, a.id)
    const kept = await createLineItem(t, b.id)
    const response = await t.fetch(`/api/v1/orders/${a.id}/line-items?confirm=line-items`, {
      method: 'DELETE',
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('2')
    const rest = await readJson<ListBody>(await t.fetch('/api/v1/line-items'))
    expect(rest.data.map((i) => i.id)).toEqual([kept.id])
  })

  it('rejects confirm naming the parent collection with 400 naming confirm', async () => {
    const t = await server.tenant()
    const order = await createOrder(t)
    await createLineItem(t, order.id)
    const response = await t.fetch(`/api/v1/orders/${order.id}/line-items?confirm=orders`, {
      method: 'DELETE',
    })
    await expectError(response, 400, 'BAD_REQUEST', ['confirm'])
    expect(await server.sql.count('line_items', t.orgId)).toBe(1)
  })
})

describe('the delete:{collection} scope', () => {
  it('answers 403 FORBIDDEN naming the scope when the token lacks delete:products, deleting nothing', async () => {
    const limited = await server.tenant({ scope: ['read:products', 'write:products'] })
    await createProduct(limited)
    const response = await limited.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    const error = await expectError(response, 403, 'FORBIDDEN', ['scope'])
    expect(error.error.details[0]!.message).toBe('requires delete:products')
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(response.headers.get('www-authenticate')).toContain('scope="delete:products"')
    expect(await server.sql.count('products', limited.orgId)).toBe(1)
  })

  it('is enough on its own next to read access: delete:products deletes', async () => {
    const t = await server.tenant({ scope: ['read:products', 'write:products', 'delete:products'] })
    await createProduct(t)
    const response = await t.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('1')
  })

  it('is not granted by delete:orders', async () => {
    const t = await server.tenant({ scope: ['read:products', 'write:products', 'delete:orders'] })
    await createProduct(t)
    const response = await t.fetch('/api/v1/products?confirm=products', { method: 'DELETE' })
    await expectError(response, 403, 'FORBIDDEN', ['scope'])
  })
})
