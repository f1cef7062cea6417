import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLineItem, createOrder, createUser } from '../rest/fixtures.ts'
import { onPostgres } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { subscribe, type Transport } from './subscriptions.ts'
import { expectGraphQLError, graphql, type Loose, scopedToken } from './support.ts'

/** GraphQL reads the event log with REST's rule: an event is visible with the read scope of its collection. */

let server: TestServer
let acme: Tenant
let eventsOnly: string
let withOrders: string
/** acme's order events, newest first. */
let orderEvents: string[]
let firstEvent: string
let userEvent: string

const eventsOf = async (resource: string) =>
  (
    (await server.sql.all(
      'SELECT id FROM events WHERE org_id = ? AND resource = ? ORDER BY created_at DESC, id DESC',
      acme.orgId,
      resource,
    )) as { id: string }[]
  ).map((r) => r.id)

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  const order = await createOrder(acme)
  await createLineItem(acme, order.id)
  await createOrder(acme, { userId: order.userId })
  await createUser(acme)
  eventsOnly = await scopedToken(server, acme, ['read:events'])
  withOrders = await scopedToken(server, acme, ['read:events', 'read:orders'])
  orderEvents = await eventsOf('orders')
  userEvent = (await eventsOf('users'))[0]!
  const oldest = (await server.sql.get(
    `SELECT id FROM events WHERE org_id = ? ORDER BY ${onPostgres ? 'seq' : 'rowid'} LIMIT 1`,
    acme.orgId,
  )) as { id: string }
  firstEvent = oldest.id
})
afterAll(() => server.stop())

const run = async (token: string, query: string, variables?: Record<string, unknown>) =>
  (await graphql<Loose>(server, null, query, variables, { token })).body

const tokens = () =>
  [
    ['read:events read:orders', withOrders, orderEvents],
    ['read:events', eventsOnly, []],
  ] as const

describe('query { events }', () => {
  it('lists and counts only events of collections the token may read', async () => {
    for (const [, token, visible] of tokens()) {
      const body = await run(token, '{ events(first: 100) { totalCount nodes { id resource data } } }')
      expect(body.errors).toBeUndefined()
      expect(body.data.events.totalCount).toBe(visible.length)
      expect(body.data.events.nodes.map((n: Loose) => n.id)).toEqual(visible)
      expect(JSON.stringify(body)).not.toContain('@example.com')
    }
  })

  it('pages through only visible events with after', async () => {
    const seen: string[] = []
    let after: string | null = null
    for (let i = 0; i < 10; i++) {
      const body: Loose = await run(
        withOrders,
        'query($after: String) { events(first: 1, after: $after) { nodes { id resource } pageInfo { hasNextPage endCursor } } }',
        { after },
      )
      expect(body.errors).toBeUndefined()
      seen.push(...body.data.events.nodes.map((n: Loose) => n.id))
      if (!body.data.events.pageInfo.hasNextPage) break
      after = body.data.events.pageInfo.endCursor
    }
    expect(seen).toEqual(orderEvents)
  })

  it('answers FORBIDDEN naming read:users for events(resource: "users")', async () => {
    const body = await run(withOrders, '{ events(resource: "users") { nodes { id data } } }')
    expect(body.data).toBeNull()
    const error = expectGraphQLError(body, 'FORBIDDEN', ['scope'])
    expect(error.extensions?.details?.[0]?.message).toBe('requires read:users')
  })
})

describe('query { event(id) }', () => {
  it("answers FORBIDDEN naming read:users for a user's event, and an order's event with read:orders", async () => {
    const refused = await run(withOrders, 'query($id: ID!) { event(id: $id) { id data } }', { id: userEvent })
    expect(refused.data).toEqual({ event: null })
    const error = expectGraphQLError(refused, 'FORBIDDEN', ['scope'])
    expect(error.extensions?.details?.[0]?.message).toBe('requires read:users')
    expect(JSON.stringify(refused)).not.toContain('@example.com')
    const allowed = await run(withOrders, 'query($id: ID!) { event(id: $id) { id resource } }', {
      id: orderEvents[0],
    })
    expect(allowed).toEqual({ data: { event: { id: orderEvents[0], resource: 'orders' } } })
  })
})

const transports: Transport[] = ['sse', 'ws']

describe.each(transports)('subscription { events } over %s', (transport) => {
  it('replays and streams only events of collections the token may read', async () => {
    // Oldest first, as the log appends them; the log's first event is a user's, not among them.
    const missed = (await eventsOf('orders')).reverse()
    const subscriber = subscribe(server, transport, withOrders, { after: firstEvent })
    const replayed = await subscriber.take(missed.length)
    await createUser(acme)
    const live = await createOrder(acme)
    const [next] = await subscriber.take(1)
    await subscriber.close()
    expect(replayed.map((e) => e.id)).toEqual(missed)
    expect(next).toMatchObject({ type: 'order.created', resourceId: live.id })
    expect(JSON.stringify([...replayed, next])).not.toContain('@example.com')
  })

  it('streams nothing to a token that may read no collection', async () => {
    const subscriber = subscribe(server, transport, eventsOnly, { after: firstEvent })
    await createUser(acme)
    const outcome = await subscriber.next(1500).then(
      (message) => JSON.stringify(message),
      (error: Error) => error.message,
    )
    await subscriber.close()
    expect(outcome).toBe('no message within 1500 ms')
  })
})
