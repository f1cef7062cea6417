import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser, type ErrorBody, readJson, unique } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * A validation error names the fields of the version the request was made in: v2 has no
 * top-level `currency` on orders and products, so it never asks for one (docs/api.md, "Versions").
 */

let server: TestServer
let acme: Tenant
let userId: string
let orderId: string
let productId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
  const order = await acme.fetch('/api/v2/orders', {
    method: 'POST',
    json: { userId, amount: { value: 100, currency: 'EUR' } },
  })
  orderId = (await readJson(order)).id
  const product = await acme.fetch('/api/v2/products', {
    method: 'POST',
    json: { name: 'Mug', sku: unique('MUG'), price: { value: 100, currency: 'EUR' } },
  })
  productId = (await readJson(product)).id
})
afterAll(() => server.stop())

interface Case {
  name: string
  method: 'POST' | 'PUT' | 'PATCH'
  path: () => string
  body: () => Record<string, unknown>
  /** The details' fields, in order. */
  fields: string[]
  /** The first detail's message. */
  says?: RegExp
}

const money = (value: unknown, currency: unknown) => ({ value, currency })

const V2: Case[] = [
  {
    name: 'an order without amount (the issue: no currency: is required)',
    method: 'POST',
    path: () => '/api/v2/orders',
    body: () => ({ status: 'paid' }),
    fields: ['userId', 'amount'],
  },
  {
    name: 'a replaced order without amount',
    method: 'PUT',
    path: () => `/api/v2/orders/${orderId}`,
    body: () => ({ userId }),
    fields: ['amount'],
    says: /is required/,
  },
  {
    name: 'a negative value',
    method: 'POST',
    path: () => '/api/v2/orders',
    body: () => ({ userId, amount: money(-1, 'EUR') }),
    fields: ['amount.value'],
    says: /at least 0/,
  },
  {
    name: 'a value that is not an integer',
    method: 'PATCH',
    path: () => `/api/v2/orders/${orderId}`,
    body: () => ({ amount: money(1.5, 'EUR') }),
    fields: ['amount.value'],
    says: /integer/,
  },
  {
    name: 'a currency that is not ISO 4217',
    method: 'POST',
    path: () => '/api/v2/orders',
    body: () => ({ userId, amount: money(1, 'euro') }),
    fields: ['amount.currency'],
  },
  {
    name: 'a null currency',
    method: 'PATCH',
    path: () => `/api/v2/orders/${orderId}`,
    body: () => ({ amount: money(1, null) }),
    fields: ['amount.currency'],
    says: /not be null/,
  },
  {
    name: 'a product without price',
    method: 'POST',
    path: () => '/api/v2/products',
    body: () => ({ name: 'Cup', sku: unique('CUP') }),
    fields: ['price'],
    says: /is required/,
  },
  {
    name: "a product's bad currency",
    method: 'PATCH',
    path: () => `/api/v2/products/${productId}`,
    body: () => ({ price: money(1, 'eu') }),
    fields: ['price.currency'],
  },
]

const V1: Case[] = [
  {
    name: 'an order without amount and currency',
    method: 'POST',
    path: () => '/api/v1/orders',
    body: () => ({ status: 'paid' }),
    fields: ['userId', 'amount', 'currency'],
  },
  {
    name: 'a currency that is not ISO 4217',
    method: 'POST',
    path: () => '/api/v1/orders',
    body: () => ({ userId, amount: 1, currency: 'euro' }),
    fields: ['currency'],
  },
  {
    name: 'a negative amount',
    method: 'PATCH',
    path: () => `/api/v1/orders/${orderId}`,
    body: () => ({ amount: -1 }),
    fields: ['amount'],
  },
]

async function details(c: Case) {
  const response = await acme.fetch(c.path(), { method: c.method, json: c.body() })
  expect(response.status).toBe(422)
  const { error } = await readJson<ErrorBody>(response)
  expect(error.code).toBe('VALIDATION_ERROR')
  return error.details
}

describe('v2 validation errors name v2 fields', () => {
  for (const c of V2) {
    it(`${c.method} ${c.name}: 422 naming ${c.fields.join(', ')}`, async () => {
      const found = await details(c)
      expect(found.map((d) => d.field)).toEqual(c.fields)
      if (c.says) expect(found[0]!.message).toMatch(c.says)
      expect(found.map((d) => d.field)).not.toContain('currency')
    })
  }

  it('following the answer to a missing amount gives a 201, not another error', async () => {
    const first = await details(V2[0]!)
    expect(first.map((d) => d.field)).toEqual(['userId', 'amount'])
    const response = await acme.fetch('/api/v2/orders', {
      method: 'POST',
      json: { status: 'paid', userId, amount: money(1, 'EUR') },
    })
    expect(response.status).toBe(201)
  })
})

describe('v1 validation errors keep naming v1 fields', () => {
  for (const c of V1) {
    it(`${c.method} ${c.name}: 422 naming ${c.fields.join(', ')}`, async () => {
      expect((await details(c)).map((d) => d.field)).toEqual(c.fields)
    })
  }
})
