import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { pluralField } from '../../server/graphql/names.ts'
import { serviceSchema } from '../../server/graphql/schema.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createOrder, createUser, createWebhookEndpoint, firstDelivery } from '../rest/fixtures.ts'
import { statementsOf } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'
import {
  data,
  expectGraphQLError,
  GRAPHQL_RESPONSE,
  graphql,
  scopedToken,
  shortLivedToken,
} from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/** The statements of `run` that read `table`. */
const reads = async (server: TestServer, table: string, run: () => Promise<unknown>) =>
  (await statementsOf(server.sql, run)).filter((sql) => new RegExp(`FROM ${table}\\b`).test(sql))

const ORDER = 'query One($id: ID!) { order(id: $id) { id amount status } }'

describe('GraphQL queries through the response cache', () => {
  let server: TestServer
  let acme: Tenant
  let receiver: Receiver

  beforeAll(async () => {
    server = await startTestServer({ webhooks: { allowHttp: true, pollMs: 25 } })
    acme = await server.tenant()
    receiver = startReceiver()
  })
  afterAll(async () => {
    receiver.stop()
    await server.stop()
  })

  it('answers a repeated query with the same bytes without reading the database', async () => {
    const order = await createOrder(acme, { amount: 100 })
    const first = await graphql(server, acme, ORDER, { id: order.id })
    expect(first.body.data?.order).toEqual({ id: order.id, amount: 100, status: 'pending' })
    let again: Awaited<ReturnType<typeof graphql>> | undefined
    expect(
      await reads(
        server,
        'orders',
        async () => (again = await graphql(server, acme, ORDER, { id: order.id })),
      ),
    ).toEqual([])
    expect(again!.status).toBe(200)
    expect(again!.contentType).toBe(first.contentType)
    expect([...again!.response.headers.keys()]).toEqual([...first.response.headers.keys()])
    expect(again!.body).toEqual(first.body)
  })

  it('shares an answer between spellings of the same variables, not between different ones', async () => {
    const [a, b] = [await createOrder(acme, { amount: 1 }), await createOrder(acme, { amount: 2 })]
    const query = 'query Two($a: ID!, $b: ID!) { x: order(id: $a) { amount } y: order(id: $b) { amount } }'
    expect(await data(server, acme, query, { a: a.id, b: b.id })).toEqual({
      x: { amount: 1 },
      y: { amount: 2 },
    })
    expect(await reads(server, 'orders', () => data(server, acme, query, { b: b.id, a: a.id }))).toEqual([])
    expect(await data(server, acme, query, { a: b.id, b: a.id })).toEqual({
      x: { amount: 2 },
      y: { amount: 1 },
    })
  })

  it('changes at once after a write through REST', async () => {
    const order = await createOrder(acme, { amount: 100 })
    for (let amount = 101; amount < 111; amount++) {
      await graphql(server, acme, ORDER, { id: order.id })
      const patched = await acme.fetch(`/api/v1/orders/${order.id}`, { method: 'PATCH', json: { amount } })
      expect(patched.status).toBe(200)
      expect((await data(server, acme, ORDER, { id: order.id })).order.amount).toBe(amount)
    }
  })

  it('changes at once after a GraphQL mutation, and never keeps the mutation', async () => {
    const order = await createOrder(acme, { amount: 100 })
    const update =
      'mutation Up($id: ID!, $amount: SafeInt!) { updateOrder(id: $id, input: {amount: $amount}) { amount } }'
    const create =
      'mutation New($userId: ID!) { createOrder(input: {userId: $userId, amount: 5, currency: "EUR"}) { id } }'
    for (const amount of [200, 300, 200]) {
      await data(server, acme, ORDER, { id: order.id })
      expect((await data(server, acme, update, { id: order.id, amount })).updateOrder.amount).toBe(amount)
      expect((await data(server, acme, ORDER, { id: order.id })).order.amount).toBe(amount)
    }
    // The same mutation twice runs twice.
    const userId = (await createUser(acme)).id
    const ids = [
      (await data(server, acme, create, { userId })).createOrder.id,
      (await data(server, acme, create, { userId })).createOrder.id,
    ]
    expect(new Set(ids).size).toBe(2)
  })

  it('answers GET /graphql from the cache too, and changes after a write', async () => {
    const order = await createOrder(acme, { amount: 7 })
    const get = async () => {
      const params = new URLSearchParams({ query: ORDER, variables: JSON.stringify({ id: order.id }) })
      const response = await acme.fetch(`/graphql?${params}`, { headers: { Accept: GRAPHQL_RESPONSE } })
      expect(response.status).toBe(200)
      return ((await response.json()) as { data: { order: { amount: number } } }).data.order.amount
    }
    expect(await get()).toBe(7)
    expect(await reads(server, 'orders', get)).toEqual([])
    await acme.fetch(`/api/v1/orders/${order.id}`, { method: 'PATCH', json: { amount: 8 } })
    expect(await get()).toBe(8)
  })

  it('keeps an answer per media type', async () => {
    const order = await createOrder(acme)
    for (const accept of [GRAPHQL_RESPONSE, 'application/json', GRAPHQL_RESPONSE, 'application/json']) {
      const sent = await graphql(server, acme, ORDER, { id: order.id }, { accept })
      expect(sent.status).toBe(200)
      expect(sent.contentType).toStartWith(accept)
    }
  })

  it('does not keep an answer with errors', async () => {
    const query = 'query Missing { order(id: "ord_doesnotexist") { id } }'
    expectGraphQLError((await graphql(server, acme, query)).body, 'NOT_FOUND')
    expect(
      await reads(server, 'orders', async () =>
        expectGraphQLError((await graphql(server, acme, query)).body, 'NOT_FOUND'),
      ),
    ).toHaveLength(1)
  })

  it('never lets two tokens with different read scopes share an answer, in either order', async () => {
    const order = await createOrder(acme)
    const both = await scopedToken(server, acme, ['read:orders', 'read:users'])
    const ordersOnly = await scopedToken(server, acme, ['read:orders'])
    const query = 'query WithUser($id: ID!) { order(id: $id) { id user { id } } }'
    const as = (token: string) => graphql(server, acme, query, { id: order.id }, { token })
    const expectFull = (sent: Awaited<ReturnType<typeof as>>) => {
      expect(sent.body.errors).toBeUndefined()
      expect(sent.body.data?.order.user.id).toBe(order.userId)
    }
    const expectRefused = (sent: Awaited<ReturnType<typeof as>>) => expectGraphQLError(sent.body, 'FORBIDDEN')
    // Each answer is asked twice, so the second of each comes from the cache when kept.
    for (let round = 0; round < 2; round++) {
      expectFull(await as(both))
      expectRefused(await as(ordersOnly))
      expectRefused(await as(ordersOnly))
      expectFull(await as(both))
    }
  })

  it('shares an answer between principals of one organization with the same read scopes (nothing else of them shapes a query)', async () => {
    const order = await createOrder(acme)
    const one = await scopedToken(server, acme, ['read:orders', 'write:orders'])
    const other = await scopedToken(server, acme, ['read:orders'])
    await graphql(server, acme, ORDER, { id: order.id }, { token: one })
    expect(
      await reads(server, 'orders', () => graphql(server, acme, ORDER, { id: order.id }, { token: other })),
    ).toEqual([])
  })

  it('does not answer from the cache once the token has expired', async () => {
    const order = await createOrder(acme)
    const token = await shortLivedToken(server, acme, 2, ['read:orders'])
    expect((await graphql(server, acme, ORDER, { id: order.id }, { token })).body.data?.order.id).toBe(
      order.id,
    )
    await Bun.sleep(2100)
    expectGraphQLError(
      (await graphql(server, acme, ORDER, { id: order.id }, { token })).body,
      'UNAUTHENTICATED',
    )
  })

  it('never keeps an answer showing webhook deliveries (the worker changes them without an event)', async () => {
    const endpoint = await createWebhookEndpoint(acme, { url: receiver.url, eventTypes: ['user.created'] })
    await createUser(acme)
    const delivery = await firstDelivery(acme, endpoint.id, 'succeeded')
    const queries = [
      ['query L { deliveries(first: 5) { totalCount } }', {}],
      [
        'query E($id: ID!) { webhookEndpoint(id: $id) { deliveries { nodes { status } } } }',
        { id: endpoint.id },
      ],
      ['query N($id: ID!) { node(id: $id) { id } }', { id: delivery.id }],
      ['query A { deliveriesAggregate(groupBy: [status]) { key { status } count } }', {}],
    ] as const
    for (const [query, variables] of queries) {
      await data(server, acme, query, variables)
      expect(
        await reads(server, 'webhook_deliveries', () => data(server, acme, query, variables)),
      ).not.toEqual([])
    }
  })

  it('the query fields are those generated from the declarations, which read only the organization and scopes', () => {
    // A field that shows something of the principal (a `viewer`, the token's expiry) would need
    // its own place in the key: adding one must start here (server/graphql/kept-answers.ts).
    const generated = SCHEMA.resources.flatMap((r) => [
      r.singular.replace(/-./g, (m) => m[1]!.toUpperCase()),
      pluralField(r),
      `${pluralField(r)}Aggregate`,
    ])
    const fields = Object.keys(serviceSchema(SCHEMA).getQueryType()!.getFields())
    expect(fields.sort()).toEqual([...generated, 'node', 'nodes', 'search'].sort())
  })
})

describe('GraphQL under serve --no-cache', () => {
  let server: TestServer
  let acme: Tenant
  beforeAll(async () => {
    server = await startTestServer({ cacheMb: 0 })
    acme = await server.tenant()
  })
  afterAll(() => server?.stop())

  it('reads the database for every query, and answers every change', async () => {
    const order = await createOrder(acme, { amount: 1 })
    await data(server, acme, ORDER, { id: order.id })
    expect(await reads(server, 'orders', () => data(server, acme, ORDER, { id: order.id }))).toHaveLength(1)
    await acme.fetch(`/api/v1/orders/${order.id}`, { method: 'PATCH', json: { amount: 2 } })
    expect((await data(server, acme, ORDER, { id: order.id })).order.amount).toBe(2)
  })
})
