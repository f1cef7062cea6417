import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { closedWithin, openRawSocket } from '../graphql/raw-socket.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createOrder, createProduct, createUser, expectError, readJson } from './fixtures.ts'

// I-JSON (RFC 7493 §2.3): a member name appears once per object. JSON.parse would keep the last
// value and say nothing; the service answers 400 naming the member, before anything is written.

let server: TestServer
let acme: Tenant
let userId: string
let orderId: string
let productId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
  orderId = (await createOrder(acme, { userId })).id
  productId = (await createProduct(acme)).id
})
afterAll(() => server.stop())

const send = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  acme.fetch(path, { method, headers: { 'Content-Type': 'application/json', ...headers }, body })

describe('REST bodies with a repeated member name', () => {
  const cases: [string, string, string, () => string][] = [
    [
      'POST',
      '/api/v1/orders',
      'amount',
      () => `{"userId": "${userId}", "amount": 1, "currency": "EUR", "amount": 2}`,
    ],
    [
      'POST',
      '/api/v2/orders',
      'amount.value',
      () => `{"userId": "${userId}", "amount": {"value": 1, "currency": "EUR", "value": 2}}`,
    ],
    ['PATCH', '/api/v1/orders/:order', 'status', () => '{"status": "paid", "st\\u0061tus": "cancelled"}'],
    [
      'PATCH',
      '/api/v2/orders/:order',
      'amount.currency',
      () => '{"amount": {"value": 5, "currency": "EUR", "currency": "USD"}}',
    ],
    [
      'PUT',
      '/api/v1/products/:product',
      'price',
      () => '{"name": "Mug", "sku": "MUG-1", "price": 100, "currency": "EUR", "price": 1}',
    ],
    [
      'PUT',
      '/api/v2/products/:product',
      'sku',
      () => '{"name": "Mug", "sku": "MUG-1", "sku": "MUG-2", "price": {"value": 100, "currency": "EUR"}}',
    ],
    [
      'POST',
      '/api/v1/orders/:order/line-items',
      'quantity',
      () => `{"productId": "${productId}", "quantity": 1, "unitPrice": 5, "quantity": 9}`,
    ],
  ]

  it.each(cases)(
    '%s %s answers 400 BAD_REQUEST naming %s, and changes nothing',
    async (method, route, field, body) => {
      const path = route.replace(':order', orderId).replace(':product', productId)
      const orders = await server.sql.count('orders')
      const lineItems = await server.sql.count('line_items')
      const records = () =>
        Promise.all(
          [`/api/v1/orders/${orderId}`, `/api/v1/products/${productId}`].map(async (p) =>
            readJson(await acme.fetch(p)),
          ),
        )
      const before = await records()
      const response = await send(method, path, body())
      const error = await expectError(response, 400, 'BAD_REQUEST', [field])
      expect(error.error.message).toContain(field)
      expect(await server.sql.count('orders')).toBe(orders)
      expect(await server.sql.count('line_items')).toBe(lineItems)
      expect(await records()).toEqual(before)
    },
  )

  it('an Idempotency-Key is not taken by the refused body: the corrected request creates the order', async () => {
    const key = { 'Idempotency-Key': `dup-${Date.now()}` }
    const refused = await send(
      'POST',
      '/api/v1/orders',
      `{"userId": "${userId}", "amount": 1, "currency": "EUR", "amount": 2}`,
      key,
    )
    await expectError(refused, 400, 'BAD_REQUEST', ['amount'])
    const created = await send(
      'POST',
      '/api/v1/orders',
      `{"userId": "${userId}", "amount": 2, "currency": "EUR"}`,
      key,
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('idempotent-replayed')).toBeNull()
  })

  it('names the path of a member repeated deep inside the body', async () => {
    const response = await send(
      'PATCH',
      `/api/v1/orders/${orderId}`,
      '{"status": "paid", "note": [{"a": 1}, {"b": {"c": 1, "c": 2}}]}',
    )
    await expectError(response, 400, 'BAD_REQUEST', ['note[1].b.c'])
  })
})

describe('QUERY /api/v1/orders with a JSON body repeating a parameter', () => {
  it('answers 400 BAD_REQUEST (not 422) naming the parameter', async () => {
    const response = await send('QUERY', '/api/v1/orders', '{"status": "paid", "status": "pending"}')
    await expectError(response, 400, 'BAD_REQUEST', ['status'])
  })

  it('and on /api/v1/search', async () => {
    const response = await send('QUERY', '/api/v1/search', '{"q": "mug", "q": "cup"}')
    await expectError(response, 400, 'BAD_REQUEST', ['q'])
  })
})

const QUERY = 'query ($first: Int) { orders(first: $first) { totalCount } }'

describe('POST /graphql with repeated variables', () => {
  it.each([['application/json'], ['application/graphql-response+json']])(
    'answers 400 BAD_REQUEST naming variables.first (Accept: %s)',
    async (accept) => {
      const response = await send(
        'POST',
        '/graphql',
        `{"query": ${JSON.stringify(QUERY)}, "variables": {"first": 1, "first": 50}}`,
        { Accept: accept },
      )
      await expectError(response, 400, 'BAD_REQUEST', ['variables.first'])
    },
  )

  it('answers 400 for a repeated key of the request itself', async () => {
    const response = await send(
      'POST',
      '/graphql',
      '{"query": "{ __typename }", "query": "{ orders { totalCount } }"}',
    )
    await expectError(response, 400, 'BAD_REQUEST', ['query'])
  })
})

describe('GET /graphql with repeated or too deep variables in the query string', () => {
  const get = (variables: string) =>
    acme.fetch(`/graphql?query=${encodeURIComponent(QUERY)}&variables=${encodeURIComponent(variables)}`, {
      headers: { Accept: 'application/graphql-response+json' },
    })

  it('answers 400 BAD_REQUEST naming variables.first, as POST does', async () => {
    await expectError(await get('{"first": 1, "first": 50}'), 400, 'BAD_REQUEST', ['variables.first'])
  })

  it('holds variables to the JSON depth limit, as POST does', async () => {
    const deep = `{"first": 1, "x": ${'['.repeat(40)}${']'.repeat(40)}}`
    const response = await get(deep)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST')
  })

  it('still answers a well-formed GET', async () => {
    expect((await get('{"first": 1}')).status).toBe(200)
  })
})

describe('GraphQL over WebSocket with repeated variables', () => {
  it('runs an operation, then closes the socket with 4400 naming payload.variables.first when one repeats it', async () => {
    const socket = await openRawSocket(server, acme)
    socket.ws.send(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY, variables: { first: 1 } } }),
    )
    expect(await socket.next()).toEqual({
      id: '1',
      type: 'next',
      payload: { data: { orders: { totalCount: expect.any(Number) } } },
    })
    socket.ws.send(
      `{"id": "2", "type": "subscribe", "payload": {"query": ${JSON.stringify(QUERY)}, "variables": {"first": 1, "first": 50}}}`,
    )
    const event = await closedWithin(socket)
    socket.ws.close()
    expect(event).toEqual({ code: 4400, reason: expect.stringContaining('payload.variables.first') })
  })
})
