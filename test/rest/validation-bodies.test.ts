import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createOrder, createProduct, createUser, expectError, productBody, userBody } from './fixtures.ts'

let server: TestServer
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
})
afterAll(() => server.stop())

/** Runs a request that must fail and checks that no record and no event were written anywhere. */
async function expectNothingStored(run: () => Promise<void>) {
  const tables = ['users', 'products', 'orders', 'line_items', 'events']
  const before = await Promise.all(tables.map((t) => server.sql.count(t)))
  await run()
  expect(await Promise.all(tables.map((t) => server.sql.count(t)))).toEqual(before)
}

const post = (t: Tenant, path: string, body: string, contentType: string | null) =>
  t.fetch(path, {
    method: 'POST',
    body,
    headers: contentType === null ? {} : { 'Content-Type': contentType },
  })

describe('POST /api/v1/users body shape', () => {
  it.each([
    ['an array', '[{"name":"Ann"}]'],
    ['a string', '"Ann"'],
    ['null', 'null'],
    ['a number', '42'],
    ['true', 'true'],
  ])('rejects %s with 422 and a detail naming body', async (_, text) => {
    await expectNothingStored(async () => {
      const response = await post(acme, '/api/v1/users', text, 'application/json')
      const error = await expectError(response, 422, 'VALIDATION_ERROR', ['body'])
      expect(error.error.details[0]!.message).toBe('must be a JSON object')
    })
  })

  it.each([
    ['a truncated object', '{"name": "Ann"'],
    ['a trailing comma', '{"name": "Ann",}'],
    ['single quotes', "{'name': 'Ann'}"],
    ['an empty body', ''],
  ])('rejects %s as malformed JSON with 400 BAD_REQUEST naming body', async (_, text) => {
    await expectNothingStored(async () => {
      await expectError(await post(acme, '/api/v1/users', text, 'application/json'), 400, 'BAD_REQUEST', [
        'body',
      ])
    })
  })

  it.each([
    ['no Content-Type', null],
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
  ])('rejects %s with 415 UNSUPPORTED_MEDIA_TYPE naming Content-Type', async (_, type) => {
    await expectNothingStored(async () => {
      const response = await post(acme, '/api/v1/users', JSON.stringify(userBody()), type)
      await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', ['Content-Type'])
    })
  })

  it.each(['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json'])(
    'accepts the JSON media type %s',
    async (type) => {
      expect((await post(acme, '/api/v1/users', JSON.stringify(userBody()), type)).status).toBe(201)
    },
  )

  it.each(['PATCH', 'PUT'])('rejects %s without a JSON Content-Type with 415', async (method) => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method,
      body: JSON.stringify(productBody()),
      headers: { 'Content-Type': 'text/plain' },
    })
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', ['Content-Type'])
  })

  it.each(['PATCH', 'PUT'])('rejects %s with malformed JSON with 400 naming body', async (method) => {
    const product = await createProduct(acme)
    const response = await acme.fetch(`/api/v1/products/${product.id}`, {
      method,
      body: '{"name":',
      headers: { 'Content-Type': 'application/json' },
    })
    await expectError(response, 400, 'BAD_REQUEST', ['body'])
  })
})

describe('references to other records', () => {
  const cases: [
    string,
    string,
    () => Promise<{ path: string; json: Record<string, unknown>; field: string }>,
  ][] = [
    [
      'orders',
      'a user of another organization',
      async () => ({
        path: '/api/v1/orders',
        json: { userId: (await createUser(globex)).id, amount: 1, currency: 'EUR' },
        field: 'userId',
      }),
    ],
    [
      'orders',
      'a user that does not exist',
      async () => ({
        path: '/api/v1/orders',
        json: { userId: 'usr_01jd3v0m7qf8s9t2w4x6y8z0ab', amount: 1, currency: 'EUR' },
        field: 'userId',
      }),
    ],
    [
      'line-items',
      'a product of another organization',
      async () => ({
        path: `/api/v1/orders/${(await createOrder(acme)).id}/line-items`,
        json: { productId: (await createProduct(globex)).id, quantity: 1, unitPrice: 1 },
        field: 'productId',
      }),
    ],
    [
      'posts',
      'an author of another organization',
      async () => ({
        path: '/api/v1/posts',
        json: { authorId: (await createUser(globex)).id, title: 'T' },
        field: 'authorId',
      }),
    ],
  ]
  it.each(cases)('rejects %s naming %s with 422 naming the field', async (_, _what, setup) => {
    const { path, json, field } = await setup()
    await expectNothingStored(async () => {
      const response = await acme.fetch(path, { method: 'POST', json })
      const error = await expectError(response, 422, 'VALIDATION_ERROR', [field])
      expect(error.error.details[0]!.message).toStartWith('no ')
    })
  })

  it('rejects a PATCH pointing an order at a user of another organization, leaving it unchanged', async () => {
    const order = await createOrder(acme)
    const foreign = await createUser(globex)
    const response = await acme.fetch(`/api/v1/orders/${order.id}`, {
      method: 'PATCH',
      json: { userId: foreign.id },
    })
    await expectError(response, 422, 'VALIDATION_ERROR', ['userId'])
    expect(await (await acme.fetch(`/api/v1/orders/${order.id}`)).json()).toEqual(order)
  })
})

describe('unique fields', () => {
  it('rejects a second user with the same email, in any letter case, with 409 naming email', async () => {
    const first = await createUser(acme)
    await expectNothingStored(async () => {
      const response = await acme.fetch('/api/v1/users', {
        method: 'POST',
        json: { name: 'Bob', email: (first.email as string).toUpperCase() },
      })
      await expectError(response, 409, 'CONFLICT', ['email'])
    })
  })

  it('rejects a second product with the same sku with 409 naming sku', async () => {
    const first = await createProduct(acme)
    await expectNothingStored(async () => {
      const response = await acme.fetch('/api/v1/products', {
        method: 'POST',
        json: { ...productBody(), sku: first.sku },
      })
      await expectError(response, 409, 'CONFLICT', ['sku'])
    })
  })

  it('lets another organization use the same email and sku', async () => {
    const user = await createUser(acme)
    const product = await createProduct(acme)
    expect(
      (await globex.fetch('/api/v1/users', { method: 'POST', json: { name: 'A', email: user.email } }))
        .status,
    ).toBe(201)
    const again = await globex.fetch('/api/v1/products', {
      method: 'POST',
      json: { ...productBody(), sku: product.sku },
    })
    expect(again.status).toBe(201)
  })
})
