import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createOrder, createProduct, expectAllow, expectError, readJson } from './fixtures.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

// Well-formed but never issued: the service answers 404, not 400 or 500.
const MISSING = 'prd_01jd3v0m7qf8s9t2w4x6y8z0ab'

const SINGLETON_METHODS = 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'

describe('GET /api/v1/products/{id}', () => {
  it('answers 200 with the record', async () => {
    const product = await createProduct(acme, { description: 'Blue' })
    const response = await acme.fetch(`/api/v1/products/${product.id}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect(await response.json()).toEqual(product)
  })

  it('answers 404 NOT_FOUND for an id that names no record', async () => {
    await expectError(await acme.fetch(`/api/v1/products/${MISSING}`), 404, 'NOT_FOUND')
  })

  const malformed = [
    ['a word', 'nope'],
    ['a sequential integer', '42'],
    ['a short suffix', 'prd_123'],
    ['another prefix', MISSING.replace('prd_', 'usr_')],
    ['upper case', MISSING.toUpperCase()],
    ['a first character above 7', `prd_8${MISSING.slice(5)}`],
    ['a letter outside Crockford base32', `${MISSING.slice(0, -1)}u`],
  ]
  for (const method of ['GET', 'PATCH', 'PUT', 'DELETE']) {
    it.each(malformed)(`answers ${method} with 404 for a malformed id (%s)`, async (_label, id) => {
      const init = method === 'GET' || method === 'DELETE' ? { method } : { method, json: { name: 'X' } }
      const response = await acme.fetch(`/api/v1/products/${encodeURIComponent(id!)}`, init)
      await expectError(response, 404, 'NOT_FOUND')
    })
  }
})

describe('HEAD /api/v1/products/{id}', () => {
  it('answers the headers GET would, with no body', async () => {
    const product = await createProduct(acme)
    const get = await acme.fetch(`/api/v1/products/${product.id}`)
    const text = await get.text()
    const head = await acme.fetch(`/api/v1/products/${product.id}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength))
    expect(await head.text()).toBe('')
  })

  it('answers 404 with no body for a missing record', async () => {
    const head = await acme.fetch(`/api/v1/products/${MISSING}`, { method: 'HEAD' })
    expect(head.status).toBe(404)
    expect(await head.text()).toBe('')
  })
})

describe('PATCH /api/v1/products/{id}', () => {
  it('changes only the fields sent and answers the full record', async () => {
    const product = await createProduct(acme, { description: 'Blue' })
    await Bun.sleep(5)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method: 'PATCH',
      json: { price: 1500 },
    })
    expect(response.status).toBe(200)
    const updated = await readJson(response)
    expect(updated).toEqual({ ...product, price: 1500, updatedAt: updated.updatedAt })
    expect(Date.parse(updated.updatedAt as string)).toBeGreaterThan(Date.parse(product.updatedAt as string))
    expect(await (await acme.fetch(`/api/v1/products/${product.id}`)).json()).toEqual(updated)
  })

  it('sets a nullable field to null', async () => {
    const product = await createProduct(acme, { description: 'Blue' })
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method: 'PATCH',
      json: { description: null },
    })
    expect(response.status).toBe(200)
    expect((await readJson(response)).description).toBeNull()
  })

  it('answers 404 for a missing record', async () => {
    const response = await acme.fetch(`/api/v1/products/${MISSING}`, { method: 'PATCH', json: { price: 1 } })
    await expectError(response, 404, 'NOT_FOUND')
  })

  it('answers 409 CONFLICT naming sku when another product holds it, and changes nothing', async () => {
    const taken = await createProduct(acme)
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method: 'PATCH',
      json: { sku: taken.sku, price: 1 },
    })
    await expectError(response, 409, 'CONFLICT', ['sku'])
    expect(await (await acme.fetch(`/api/v1/products/${product.id}`)).json()).toEqual(product)
  })

  it('accepts the record keeping its own unique value', async () => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method: 'PATCH',
      json: { sku: product.sku },
    })
    expect(response.status).toBe(200)
  })
})

describe('PUT /api/v1/products/{id}', () => {
  it('replaces the record: omitted nullable fields become null, omitted defaults come back', async () => {
    const product = await createProduct(acme, { description: 'Blue', active: false })
    const replacement = { name: 'Cup', sku: product.sku, price: 900, currency: 'USD' }
    const response = await acme.fetch(`/api/v1/products/${product.id}`, { method: 'PUT', json: replacement })
    expect(response.status).toBe(200)
    const replaced = await readJson(response)
    expect(replaced).toEqual({
      ...product,
      ...replacement,
      description: null,
      active: true,
      updatedAt: replaced.updatedAt,
    })
    expect(await (await acme.fetch(`/api/v1/products/${product.id}`)).json()).toEqual(replaced)
  })

  it('resets an order status to its default pending', async () => {
    const order = await createOrder(acme, { status: 'shipped' })
    const response = await acme.fetch(`/api/v1/orders/${order.id}`, {
      method: 'PUT',
      json: { userId: order.userId, amount: 10, currency: 'EUR' },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: 'pending', amount: 10 })
  })

  it('answers 422 with one "is required" detail per missing required field, and changes nothing', async () => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method: 'PUT',
      json: { name: 'Cup' },
    })
    const body = await expectError(response, 422, 'VALIDATION_ERROR', ['sku', 'price', 'currency'])
    expect(body.error.details.map((d) => d.message)).toEqual(['is required', 'is required', 'is required'])
    expect(await (await acme.fetch(`/api/v1/products/${product.id}`)).json()).toEqual(product)
  })

  it('answers 404 for a missing record', async () => {
    const response = await acme.fetch(`/api/v1/products/${MISSING}`, {
      method: 'PUT',
      json: { name: 'Cup', sku: 'S', price: 1, currency: 'EUR' },
    })
    await expectError(response, 404, 'NOT_FOUND')
  })
})

describe('DELETE /api/v1/products/{id}', () => {
  it('answers 204 with an empty body, after which the record is 404', async () => {
    const product = await createProduct(acme)
    const before = await server.sql.count('products', acme.orgId)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect(response.headers.get('content-type')).toBeNull()
    expect(await server.sql.count('products', acme.orgId)).toBe(before - 1)
    await expectError(await acme.fetch(`/api/v1/products/${product.id}`), 404, 'NOT_FOUND')
  })

  it('answers 404 when the record is already gone', async () => {
    const product = await createProduct(acme)
    expect((await acme.fetch(`/api/v1/products/${product.id}`, { method: 'DELETE' })).status).toBe(204)
    const again = await acme.fetch(`/api/v1/products/${product.id}`, { method: 'DELETE' })
    await expectError(again, 404, 'NOT_FOUND')
  })
})

describe('methods of /api/v1/products/{id}', () => {
  it.each(['POST', 'QUERY'])('answers %s with 405 METHOD_NOT_ALLOWED and Allow', async (method) => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, { method, json: {} })
    await expectError(response, 405, 'METHOD_NOT_ALLOWED')
    expect(response.headers.get('allow')).toBe(SINGLETON_METHODS)
  })

  it('answers OPTIONS with 204 and Allow', async () => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, { method: 'OPTIONS' })
    expect(response.status).toBe(204)
    expect(response.headers.get('allow')).toBe(SINGLETON_METHODS)
    expect(await response.text()).toBe('')
  })

  it('answers OPTIONS on the collection with its own Allow', async () => {
    const response = await acme.fetch('/api/v1/products', { method: 'OPTIONS' })
    expect(response.status).toBe(204)
    expectAllow(response, ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'], 'PATCH')
  })
})
