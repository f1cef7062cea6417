import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  addressBody,
  createOrder,
  createPost,
  createProduct,
  createUser,
  expectError,
  productBody,
  userBody,
} from './fixtures.ts'

let server: TestServer
let acme: Tenant
let ids: { user: string; product: string; order: string; post: string }

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  const user = await createUser(acme)
  const order = await createOrder(acme, { userId: user.id })
  const post = await createPost(acme, { authorId: user.id })
  ids = { user: user.id, product: (await createProduct(acme)).id, order: order.id, post: post.id }
})
afterAll(() => server.stop())

const long = (n: number) => 'x'.repeat(n)
const USR = 'usr_01jd3v0m7qf8s9t2w4x6y8z0ab'

/** [what is wrong, fields to merge into a valid body (undefined removes one), detail field, detail message] */
type Case = [string, Record<string, unknown>, string, string]

const common = (required: string): Case[] => [
  ['an unknown field', { nickname: 'x' }, 'nickname', 'is not a field of this resource'],
  ['id', { id: USR }, 'id', 'is read-only'],
  ['createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt', 'is read-only'],
  ['updatedAt', { updatedAt: '2024-01-01T00:00:00.000Z' }, 'updatedAt', 'is read-only'],
  [`a missing ${required}`, { [required]: undefined }, required, 'is required'],
]

const targets: {
  resource: string
  table: string
  path: () => string
  body: () => Record<string, unknown>
  cases: Case[]
}[] = [
  {
    resource: 'users',
    table: 'users',
    path: () => '/api/v1/users',
    body: userBody,
    cases: [
      ...common('email'),
      ['a number for name', { name: 42 }, 'name', 'must be a string'],
      ['null for name', { name: null }, 'name', 'must not be null'],
      ['an empty name', { name: '' }, 'name', 'must not be empty'],
      ['a name over 200 characters', { name: long(201) }, 'name', 'must be at most 200 characters'],
      ['a malformed email', { email: 'ann.example.com' }, 'email', 'must be an e-mail address'],
      ['an email with spaces', { email: 'ann smith@example.com' }, 'email', 'must be an e-mail address'],
      ['an unknown role', { role: 'owner' }, 'role', 'must be one of admin, member, viewer'],
      ['null for role', { role: null }, 'role', 'must not be null'],
    ],
  },
  {
    resource: 'products',
    table: 'products',
    path: () => '/api/v1/products',
    body: productBody,
    cases: [
      ...common('price'),
      ['a negative price', { price: -1 }, 'price', 'must be at least 0'],
      ['a fractional price', { price: 12.5 }, 'price', 'must be an integer'],
      ['a string price', { price: '1299' }, 'price', 'must be an integer'],
      ['a price above the safe range', { price: 2 ** 53 }, 'price', `must be at most ${2 ** 53 - 1}`],
      [
        'a lower-case currency',
        { currency: 'eur' },
        'currency',
        'must be an ISO 4217 currency code (e.g. EUR)',
      ],
      [
        'an unknown currency',
        { currency: 'ABC' },
        'currency',
        'must be an ISO 4217 currency code (e.g. EUR)',
      ],
      ['a four-letter currency', { currency: 'EURO' }, 'currency', 'must be at most 3 characters'],
      ['a string for active', { active: 'yes' }, 'active', 'must be true or false'],
      ['null for active', { active: null }, 'active', 'must not be null'],
      ['a sku over 64 characters', { sku: long(65) }, 'sku', 'must be at most 64 characters'],
      [
        'a description over 10000',
        { description: long(10_001) },
        'description',
        'must be at most 10000 characters',
      ],
    ],
  },
  {
    resource: 'orders',
    table: 'orders',
    path: () => '/api/v1/orders',
    body: () => ({ userId: ids.user, amount: 100, currency: 'EUR' }),
    cases: [
      ...common('userId'),
      [
        'an unknown status',
        { status: 'refunded' },
        'status',
        'must be one of pending, paid, shipped, delivered, cancelled',
      ],
      ['a negative amount', { amount: -5 }, 'amount', 'must be at least 0'],
      ['a fractional amount', { amount: 2.5 }, 'amount', 'must be an integer'],
      ['a boolean amount', { amount: true }, 'amount', 'must be an integer'],
      ['a userId that is no id', { userId: 'ann' }, 'userId', 'must be a user id (usr_…)'],
      [
        'a userId of another type',
        { userId: 'prd_01jd3v0m7qf8s9t2w4x6y8z0ab' },
        'userId',
        'must be a user id (usr_…)',
      ],
      ['null for userId', { userId: null }, 'userId', 'must not be null'],
    ],
  },
  {
    resource: 'line-items',
    table: 'line_items',
    path: () => `/api/v1/orders/${ids.order}/line-items`,
    body: () => ({ productId: ids.product, quantity: 1, unitPrice: 100 }),
    cases: [
      ...common('quantity'),
      ['orderId', { orderId: 'ord_01jd3v0m7qf8s9t2w4x6y8z0ab' }, 'orderId', 'is read-only'],
      ['a zero quantity', { quantity: 0 }, 'quantity', 'must be at least 1'],
      ['a quantity over a million', { quantity: 1_000_001 }, 'quantity', 'must be at most 1000000'],
      ['a fractional quantity', { quantity: 1.5 }, 'quantity', 'must be an integer'],
      ['a negative unitPrice', { unitPrice: -1 }, 'unitPrice', 'must be at least 0'],
      ['a productId that is no id', { productId: 'mug' }, 'productId', 'must be a product id (prd_…)'],
    ],
  },
  {
    resource: 'addresses',
    table: 'addresses',
    path: () => `/api/v1/users/${ids.user}/addresses`,
    body: addressBody,
    cases: [
      ...common('country'),
      ['userId', { userId: USR }, 'userId', 'is read-only'],
      [
        'an unknown country',
        { country: 'QQ' },
        'country',
        'must be an ISO 3166-1 alpha-2 country code (e.g. DE)',
      ],
      [
        'a lower-case country',
        { country: 'de' },
        'country',
        'must be an ISO 3166-1 alpha-2 country code (e.g. DE)',
      ],
      [
        'a region that is no country',
        { country: 'EU' },
        'country',
        'must be an ISO 3166-1 alpha-2 country code (e.g. DE)',
      ],
      ['a three-letter country', { country: 'DEU' }, 'country', 'must be at most 2 characters'],
      ['a number for line2', { line2: 5 }, 'line2', 'must be a string'],
      ['a postalCode over 20', { postalCode: long(21) }, 'postalCode', 'must be at most 20 characters'],
    ],
  },
  {
    resource: 'posts',
    table: 'posts',
    path: () => '/api/v1/posts',
    body: () => ({ authorId: ids.user, title: 'Hello' }),
    cases: [
      ...common('title'),
      ['a string for published', { published: 'true' }, 'published', 'must be true or false'],
      ['a title over 300 characters', { title: long(301) }, 'title', 'must be at most 300 characters'],
      ['null for body', { body: null }, 'body', 'must not be null'],
      ['a body over 100000', { body: long(100_001) }, 'body', 'must be at most 100000 characters'],
    ],
  },
  {
    resource: 'comments',
    table: 'comments',
    path: () => `/api/v1/posts/${ids.post}/comments`,
    body: () => ({ authorId: ids.user, text: 'Nice' }),
    cases: [
      ...common('text'),
      ['postId', { postId: 'pst_01jd3v0m7qf8s9t2w4x6y8z0ab' }, 'postId', 'is read-only'],
      ['an empty text', { text: '' }, 'text', 'must not be empty'],
      ['a text over 10000', { text: long(10_001) }, 'text', 'must be at most 10000 characters'],
      ['an object for text', { text: { en: 'x' } }, 'text', 'must be a string'],
      ['an authorId that is no id', { authorId: 'usr_1' }, 'authorId', 'must be a user id (usr_…)'],
    ],
  },
]

function merge(body: Record<string, unknown>, patch: Record<string, unknown>) {
  const out = { ...body, ...patch }
  for (const [name, value] of Object.entries(patch)) if (value === undefined) delete out[name]
  return out
}

/** Asserts that nothing at all was written: neither the table nor the event log changed. */
async function expectNothingStored(table: string, run: () => Promise<void>) {
  const before = [await server.sql.count(table), await server.sql.count('events')]
  await run()
  expect([await server.sql.count(table), await server.sql.count('events')]).toEqual(before)
}

for (const { resource, table, path, body, cases } of targets) {
  describe(`POST ${resource}`, () => {
    it.each(cases)(
      'rejects %s with 422 naming the field, storing nothing',
      async (_, patch, field, message) => {
        await expectNothingStored(table, async () => {
          const response = await acme.fetch(path(), { method: 'POST', json: merge(body(), patch) })
          const error = await expectError(response, 422, 'VALIDATION_ERROR', [field])
          expect(error.error.details[0]!.message).toBe(message)
        })
      },
    )

    it('accepts the valid body the cases start from', async () => {
      expect((await acme.fetch(path(), { method: 'POST', json: body() })).status).toBe(201)
    })
  })
}

describe('POST /api/v1/orders with several problems', () => {
  it('answers one detail per bad field, in the order sent', async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { id: USR, amount: -1, currency: 'eur', colour: 'red' },
    })
    const error = await expectError(response, 422, 'VALIDATION_ERROR', [
      'id',
      'amount',
      'currency',
      'colour',
      'userId',
    ])
    expect(error.error.message).toBeString()
  })
})

describe('PATCH and PUT validation', () => {
  const bad: [string, Record<string, unknown>, string, string][] = [
    ['an unknown field', { colour: 'red' }, 'colour', 'is not a field of this resource'],
    ['id', { id: 'prd_01jd3v0m7qf8s9t2w4x6y8z0ab' }, 'id', 'is read-only'],
    ['createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt', 'is read-only'],
    ['a wrong type', { price: 'cheap' }, 'price', 'must be an integer'],
    ['null for a non-nullable field', { name: null }, 'name', 'must not be null'],
  ]
  for (const method of ['PATCH', 'PUT']) {
    it.each(bad)(
      `rejects ${method} with %s with 422 and leaves the record unchanged`,
      async (_, patch, field, message) => {
        const product = await createProduct(acme)
        const json = method === 'PUT' ? { ...productBody(), ...patch } : patch
        const response = await acme.fetch(`/api/v1/products/${product.id}`, { method, json })
        const error = await expectError(response, 422, 'VALIDATION_ERROR', [field])
        expect(error.error.details[0]!.message).toBe(message)
        expect(await (await acme.fetch(`/api/v1/products/${product.id}`)).json()).toEqual(product)
      },
    )
  }

  it('rejects PATCH of a line item that sends orderId, as read-only', async () => {
    const item = await acme.fetch(`/api/v1/orders/${ids.order}/line-items`, {
      method: 'POST',
      json: { productId: ids.product, quantity: 1, unitPrice: 1 },
    })
    const { id } = (await item.json()) as { id: string }
    const response = await acme.fetch(`/api/v1/line-items/${id}`, {
      method: 'PATCH',
      json: { orderId: ids.order },
    })
    await expectError(response, 422, 'VALIDATION_ERROR', ['orderId'])
  })
})

describe('the NUL character (U+0000), which no stored text holds on either backend', () => {
  it('is 422 naming the field in a body, storing nothing', async () => {
    const before = await server.sql.count('users', acme.orgId)
    const response = await acme.fetch('/api/v1/users', {
      method: 'POST',
      json: { name: 'A\u0000B', email: 'nul@example.com' },
    })
    const error = await expectError(response, 422, 'VALIDATION_ERROR', ['name'])
    expect(error.error.details[0]!.message).toContain('U+0000')
    expect(await server.sql.count('users', acme.orgId)).toBe(before)
  })

  it('is 400 naming after, the keyset parameter', async () => {
    await expectError(await acme.fetch('/api/v1/orders?after=%00'), 400, 'BAD_REQUEST', ['after'])
    await expectError(await acme.fetch('/api/v2/orders?after=ord_%00'), 400, 'BAD_REQUEST', ['after'])
  })

  it('is 400 naming the parameter in a filter', async () => {
    const response = await acme.fetch('/api/v1/products?sku=%00')
    const error = await expectError(response, 400, 'BAD_REQUEST', ['sku'])
    expect(error.error.details[0]!.message).toContain('U+0000')
  })
})

describe('messages that name a collection', () => {
  it('give a reference its article: an order id, a user id', async () => {
    const byOrder = await expectError(
      await acme.fetch('/api/v2/line-items?order_id=nope'),
      400,
      'BAD_REQUEST',
      ['order_id'],
    )
    expect(byOrder.error.details[0]!.message).toBe('must be an order id (ord_…)')
    const byUser = await expectError(await acme.fetch('/api/v2/orders?user_id=nope'), 400, 'BAD_REQUEST', [
      'user_id',
    ])
    expect(byUser.error.details[0]!.message).toBe('must be a user id (usr_…)')
  })
})
