import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { clientOf, FORM, JSON_TYPE, JSONPATH, query, SQL } from '../query-method/support.ts'
import { followNext, list, nextSecond, walkPages } from '../reads/helpers.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createLineItem, createOrder, createUser, type Entity, expectError, readJson } from './fixtures.ts'

/**
 * An event carries a copy of its record, so it is visible only to a token that may read the
 * collection the event is about: `read:events` alone reads no user through the log.
 */

let server: TestServer
let acme: Tenant
/** Tokens of acme's organization: events only, and events with orders. */
let eventsOnly: Tenant
let withOrders: Tenant
/** acme's order events, newest first (the default order), read straight from the database. */
let orderEvents: string[]
let userEvent: string
let lineItemEvent: string
let newestOrderEventAt: string

const eventsOf = async (orgId: string, resource: string) =>
  (
    (await server.sql.all(
      'SELECT id, created_at FROM events WHERE org_id = ? AND resource = ? ORDER BY created_at DESC, id DESC',
      orgId,
      resource,
    )) as { id: string; created_at: string }[]
  ).map((r) => ({ id: r.id, createdAt: r.created_at }))

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  const ann = await createUser(acme)
  const order = await createOrder(acme, { userId: ann.id })
  await createLineItem(acme, order.id)
  await acme.fetch(`/api/v1/orders/${order.id}`, { method: 'PATCH', json: { status: 'paid' } })
  await createOrder(acme, { userId: ann.id })
  // The newest event is a user's, a second later than any order event (Last-Modified has seconds).
  await nextSecond()
  await createUser(acme)
  eventsOnly = await clientOf(server, acme.orgId, ['read:events'])
  withOrders = await clientOf(server, acme.orgId, ['read:events', 'read:orders'])
  const orders = await eventsOf(acme.orgId, 'orders')
  orderEvents = orders.map((e) => e.id)
  newestOrderEventAt = orders[0]!.createdAt
  userEvent = (await eventsOf(acme.orgId, 'users'))[0]!.id
  lineItemEvent = (await eventsOf(acme.orgId, 'line-items'))[0]!.id
})
afterAll(() => server.stop())

/** What a token may see: `withOrders` every order event, `eventsOnly` none. */
const tokens = () =>
  [
    ['read:events read:orders', withOrders, orderEvents],
    ['read:events', eventsOnly, []],
  ] as const

async function queried(t: Tenant, path: string, type: string, body: string): Promise<Entity[]> {
  const response = await query(t, path, type, body)
  const text = await response.text()
  expect(response.status).toBe(200)
  expect(text).not.toContain('@example.com')
  return (JSON.parse(text) as { data: Entity[] }).data
}

/** Every way of listing the log, each returning the events it shows. */
const doors: [string, (t: Tenant) => Promise<Entity[]>][] = [
  ['GET /api/v1/events', async (t) => (await list(t, '/api/v1/events?limit=100')).data],
  ['GET /api/v2/events', async (t) => (await list(t, '/api/v2/events?limit=100')).data],
  [
    'GET /api/v1/events following cursors',
    async (t) => (await followNext(t, '/api/v1/events?limit=2')).items,
  ],
  ['GET /api/v1/events page by page', (t) => walkPages(t, '/api/v1/events', 2)],
  ['QUERY /api/v1/events (form)', (t) => queried(t, '/api/v1/events', FORM, 'limit=100')],
  ['QUERY /api/v2/events (JSON)', (t) => queried(t, '/api/v2/events', JSON_TYPE, '{"limit": 100}')],
  ['QUERY /api/v1/events (SQL)', (t) => queried(t, '/api/v1/events', SQL, 'SELECT * FROM events LIMIT 100')],
  ['QUERY /api/v1/events (JSONPath)', (t) => queried(t, '/api/v1/events?limit=100', JSONPATH, '$[*]')],
  [
    'QUERY /api/v1/events (JSONPath filter run in memory)',
    (t) => queried(t, '/api/v1/events?limit=100', JSONPATH, "$[?search(@.type, '.*')]"),
  ],
  [
    'GET /api/v1/search?collection=events',
    async (t) => (await list(t, '/api/v1/search?collection=events&limit=100')).data,
  ],
  [
    'GET /api/v1/search?collection=events&filter=...',
    async (t) =>
      (
        await list(
          t,
          `/api/v1/search?collection=events&limit=100&filter=${encodeURIComponent("type LIKE '%.%'")}`,
        )
      ).data,
  ],
  [
    'QUERY /api/v1/search (JSON)',
    (t) => queried(t, '/api/v1/search', JSON_TYPE, '{"collection": "events", "limit": 100}'),
  ],
]

describe('the event log shows a token only events of collections it may read', () => {
  for (const [door, read] of doors) {
    it(`${door}: read:events read:orders sees every order event and nothing else; read:events alone sees none`, async () => {
      for (const [, token, visible] of tokens()) {
        const seen = await read(token)
        expect(seen.map((e) => e.id)).toEqual([...visible])
        for (const event of seen) expect(event.resource).toBe('orders')
      }
    })
  }

  it('QUERY with JSONPath $[*].data.email selects no email', async () => {
    for (const [, token] of tokens())
      expect(await queried(token, '/api/v1/events?limit=100', JSONPATH, '$[*].data.email')).toEqual([])
  })
})

describe('GET /api/v1/events totals and dates', () => {
  it.each([
    ['cursor', 'include_total=true&limit=1'],
    ['page', 'include_total=true&page=1&per_page=2'],
    ['offset', 'include_total=true&offset=0&limit=2'],
  ])('counts only visible events (%s style)', async (_, params) => {
    for (const [, token, visible] of tokens()) {
      const { data, pagination } = await list(token, `/api/v1/events?${params}`)
      expect(pagination.total).toBe(visible.length)
      expect(pagination.hasMore).toBe(visible.length > data.length)
      if ('totalPages' in pagination) expect(pagination.totalPages).toBe(Math.ceil(visible.length / 2))
    }
  })

  it('dates Last-Modified by the newest visible event, not by events the token may not see', async () => {
    const response = await withOrders.fetch('/api/v1/events')
    expect(response.status).toBe(200)
    expect(response.headers.get('last-modified')).toBe(new Date(newestOrderEventAt).toUTCString())
    const none = await eventsOnly.fetch('/api/v1/events')
    expect(none.headers.get('last-modified')).toBe(new Date(0).toUTCString())
  })
})

describe('a filter naming a collection the token may not read', () => {
  const users = encodeURIComponent("resource = 'users'")
  const requests: [string, (t: Tenant) => Promise<Response>][] = [
    ['GET /api/v1/events?resource=users', (t) => t.fetch('/api/v1/events?resource=users')],
    ['GET /api/v2/events?resource=users', (t) => t.fetch('/api/v2/events?resource=users')],
    ['QUERY form resource=users', (t) => query(t, '/api/v1/events', FORM, 'resource=users')],
    [
      'QUERY JSON {"resource": "users"}',
      (t) => query(t, '/api/v1/events', JSON_TYPE, '{"resource": "users"}'),
    ],
    [
      "QUERY SQL WHERE resource = 'users'",
      (t) => query(t, '/api/v1/events', SQL, "SELECT * FROM events WHERE resource = 'users'"),
    ],
    [
      "QUERY SQL WHERE resource IN ('orders', 'users')",
      (t) => query(t, '/api/v1/events', SQL, "SELECT id FROM events WHERE resource IN ('orders', 'users')"),
    ],
    [
      "QUERY JSONPath $[?@.resource == 'users']",
      (t) => query(t, '/api/v1/events', JSONPATH, "$[?@.resource == 'users']"),
    ],
    [
      "GET /api/v1/search?collection=events&filter=resource = 'users'",
      (t) => t.fetch(`/api/v1/search?collection=events&filter=${users}`),
    ],
  ]

  it.each(requests)('%s is 403 insufficient_scope naming read:users', async (_, send) => {
    const response = await send(withOrders)
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", error="insufficient_scope", scope="read:users"',
    )
    const body = await expectError(response, 403, 'FORBIDDEN', ['scope'])
    expect(body.error.details[0]!.message).toBe('requires read:users')
  })

  it('resource=orders lists the order events with read:orders, and is 403 naming read:orders without it', async () => {
    const { data } = await list(withOrders, '/api/v1/events?resource=orders&limit=100')
    expect(data.map((e) => e.id)).toEqual(orderEvents)
    const refused = await eventsOnly.fetch('/api/v1/events?resource=orders')
    expect(refused.headers.get('www-authenticate')).toContain('scope="read:orders"')
    await expectError(refused, 403, 'FORBIDDEN', ['scope'])
  })
})

describe('GET /api/v1/events/{id}', () => {
  it.each([
    ['/api/v1/events', 'a user', 'read:users', () => userEvent],
    ['/api/v2/events', 'a user', 'read:users', () => userEvent],
    ['/api/v1/events', 'a line item', 'read:line-items', () => lineItemEvent],
  ])('%s/{id} of %s event is 403 naming %s, as GET of that record would be', async (path, _, scope, id) => {
    const response = await withOrders.fetch(`${path}/${id()}`)
    expect(response.headers.get('www-authenticate')).toContain(`scope="${scope}"`)
    const body = await expectError(response, 403, 'FORBIDDEN', ['scope'])
    expect(JSON.stringify(body)).not.toContain('@example.com')
  })

  it("answers an order's event to a token with read:orders", async () => {
    const response = await withOrders.fetch(`/api/v1/events/${orderEvents[0]}`)
    expect(response.status).toBe(200)
    expect((await readJson(response)).resource).toBe('orders')
    expect((await eventsOnly.fetch(`/api/v1/events/${orderEvents[0]}`)).status).toBe(403)
  })

  it('as after= of a list (keyset) is 400 when the token may not see that event; the pages after a visible one hold only visible events', async () => {
    await expectError(await withOrders.fetch(`/api/v1/events?after=${userEvent}`), 400, 'BAD_REQUEST', [
      'after',
    ])
    const { items } = await followNext(withOrders, `/api/v1/events?after=${orderEvents[0]}&limit=2`)
    expect(items.map((e) => e.id)).toEqual(orderEvents.slice(1))
  })
})

describe('stored QUERY results of the event log', () => {
  it("serve the stored answer only to a token that may read every collection; its Location runs with the caller's rights", async () => {
    const made = await query(acme, '/api/v1/events', SQL, 'SELECT * FROM events LIMIT 100')
    expect(made.status).toBe(200)
    const stored = made.headers.get('content-location')!
    const again = made.headers.get('location')!
    expect(await acme.fetch(stored).then((r) => r.status)).toBe(200)
    const refused = await withOrders.fetch(stored)
    expect(refused.headers.get('www-authenticate')).toContain('scope="read:users"')
    const body = await expectError(refused, 403, 'FORBIDDEN', ['scope'])
    expect(JSON.stringify(body)).not.toContain('@example.com')
    const rerun = await list(withOrders, again)
    expect(rerun.data.map((e) => e.id)).toEqual(orderEvents)
  })
})
