import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  addressBody,
  createOrder,
  createPost,
  createProduct,
  createUser,
  type Entity,
  expectAllow,
  expectError,
  ISO_MS,
  idPattern,
  listEvents,
  productBody,
  readJson,
  userBody,
} from './fixtures.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

const eventIds = async (t: Tenant) =>
  new Set(
    ((await server.sql.all('SELECT id FROM events WHERE org_id = ?', t.orgId)) as { id: string }[]).map(
      (r) => r.id,
    ),
  )

/**
 * Runs one write and returns, as the API serves it, the single event it appended (failing when it
 * appended none or several). Found by difference, since events of one millisecond tie on createdAt.
 */
async function onlyEventOf(
  t: Tenant,
  write: () => Promise<Response>,
): Promise<{ event: Entity; response: Response }> {
  const before = await eventIds(t)
  const response = await write()
  expect(response.status).toBeLessThan(300)
  const added = [...(await eventIds(t))].filter((id) => !before.has(id))
  expect(added).toHaveLength(1)
  const fetched = await t.fetch(`/api/v1/events/${added[0]}`)
  expect(fetched.status).toBe(200)
  return { event: await readJson(fetched), response }
}

const creations: [string, string, string, (t: Tenant) => Promise<{ path: string; json: object }>][] = [
  ['users', 'user.created', 'users', async () => ({ path: '/api/v1/users', json: userBody() })],
  [
    'products',
    'product.created',
    'products',
    async () => ({ path: '/api/v1/products', json: productBody() }),
  ],
  [
    'orders',
    'order.created',
    'orders',
    async (t) => ({
      path: '/api/v1/orders',
      json: { userId: (await createUser(t)).id, amount: 5, currency: 'EUR' },
    }),
  ],
  [
    'posts',
    'post.created',
    'posts',
    async (t) => ({ path: '/api/v1/posts', json: { authorId: (await createUser(t)).id, title: 'T' } }),
  ],
  [
    'addresses',
    'address.created',
    'addresses',
    async (t) => ({ path: `/api/v1/users/${(await createUser(t)).id}/addresses`, json: addressBody() }),
  ],
  [
    'line-items',
    'line_item.created',
    'line-items',
    async (t) => ({
      path: `/api/v1/orders/${(await createOrder(t)).id}/line-items`,
      json: { productId: (await createProduct(t)).id, quantity: 1, unitPrice: 9 },
    }),
  ],
  [
    'comments',
    'comment.created',
    'comments',
    async (t) => {
      const post = await createPost(t)
      return { path: `/api/v1/posts/${post.id}/comments`, json: { authorId: post.authorId, text: 'Hi' } }
    },
  ],
]

describe('events of writes', () => {
  it.each(creations)(
    'creating %s appends exactly one %s event carrying the record',
    async (_, type, resource, setup) => {
      const { path, json } = await setup(acme)
      const { event, response } = await onlyEventOf(acme, () => acme.fetch(path, { method: 'POST', json }))
      const created = await readJson(response)
      expect(event).toEqual({
        id: expect.stringMatching(idPattern('evt')),
        type,
        resource,
        resourceId: created.id,
        data: created,
        actor: { type: 'client', id: acme.clientId },
        requestId: response.headers.get('x-request-id'),
        createdAt: created.createdAt,
        updatedAt: created.createdAt,
      })
    },
  )

  it('PATCH appends one order.updated event with the record after the change', async () => {
    const order = await createOrder(acme)
    const { event, response } = await onlyEventOf(acme, () =>
      acme.fetch(`/api/v1/orders/${order.id}`, { method: 'PATCH', json: { status: 'paid' } }),
    )
    const updated = await readJson(response)
    expect(event).toMatchObject({
      type: 'order.updated',
      resource: 'orders',
      resourceId: order.id,
      data: updated,
    })
  })

  it('PUT appends one product.updated event with the record after the change', async () => {
    const product = await createProduct(acme, { description: 'old' })
    const { event, response } = await onlyEventOf(acme, () =>
      acme.fetch(`/api/v1/products/${product.id}`, {
        method: 'PUT',
        json: { ...productBody(), sku: product.sku },
      }),
    )
    expect(event).toMatchObject({
      type: 'product.updated',
      resourceId: product.id,
      data: await readJson(response),
    })
    expect((event.data as Entity).description).toBeNull()
  })

  it('DELETE appends one user.deleted event with the record as it was', async () => {
    const user = await createUser(acme)
    const { event } = await onlyEventOf(acme, () =>
      acme.fetch(`/api/v1/users/${user.id}`, { method: 'DELETE' }),
    )
    expect(event).toMatchObject({ type: 'user.deleted', resource: 'users', resourceId: user.id, data: user })
    expect(event.createdAt).toMatch(ISO_MS)
  })

  it('stores each event in the events table of the database', async () => {
    const user = await createUser(acme)
    const row = (await server.sql.get(
      'SELECT type, resource, resource_id, data, org_id FROM events WHERE resource_id = ?',
      user.id,
    )) as Record<string, string>
    expect(row).toEqual({
      type: 'user.created',
      resource: 'users',
      resource_id: user.id,
      data: expect.any(String),
      org_id: acme.orgId,
    })
    expect(JSON.parse(row.data!)).toEqual(user)
  })

  it('lists events newest first', async () => {
    const user = await createUser(acme)
    await Bun.sleep(5)
    await acme.fetch(`/api/v1/users/${user.id}`, { method: 'PATCH', json: { name: 'Renamed' } })
    const [newest, previous] = await listEvents(acme, 2)
    expect([newest!.type, previous!.type]).toEqual(['user.updated', 'user.created'])
    expect(newest!.createdAt! >= previous!.createdAt!).toBe(true)
  })

  it('serves one event at /api/v1/events/{id}', async () => {
    const [event] = await listEvents(acme, 1)
    const response = await acme.fetch(`/api/v1/events/${event!.id}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(event!)
  })
})

describe('the event log is read-only', () => {
  it.each([
    ['POST', '/api/v1/events'],
    ['DELETE', '/api/v1/events?confirm=events'],
    ['PUT', '/api/v1/events'],
  ])('answers %s %s with 405 and an Allow without it', async (method, path) => {
    const response = await acme.fetch(path, { method, json: { type: 'order.created' } })
    await expectError(response, 405, 'METHOD_NOT_ALLOWED')
    expectAllow(response, ['GET', 'HEAD', 'OPTIONS'], method)
  })

  it.each(['PATCH', 'PUT', 'DELETE'])(
    'answers %s on one event with 405 and leaves it unchanged',
    async (method) => {
      const [event] = await listEvents(acme, 1)
      const events = await server.sql.count('events')
      const response = await acme.fetch(`/api/v1/events/${event!.id}`, { method, json: { type: 'x.y' } })
      await expectError(response, 405, 'METHOD_NOT_ALLOWED')
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
      expect(await (await acme.fetch(`/api/v1/events/${event!.id}`)).json()).toEqual(event!)
      expect(await server.sql.count('events')).toBe(events)
    },
  )
})

describe('events of two organizations', () => {
  it("lists only the caller's events and forbids the other's", async () => {
    const globex = await server.tenant()
    expect(await listEvents(globex)).toEqual([])
    const theirs = await createProduct(globex)
    const listed = await listEvents(globex)
    expect(listed.map((e) => e.resourceId)).toEqual([theirs.id])
    expect((await listEvents(acme)).some((e) => e.resourceId === theirs.id)).toBe(false)
    await expectError(await acme.fetch(`/api/v1/events/${listed[0]!.id}`), 403, 'FORBIDDEN')
  })

  it('needs the read:events scope', async () => {
    const limited = await server.tenant({ scope: ['read:products', 'write:products'] })
    await createProduct(limited)
    const response = await limited.fetch('/api/v1/events')
    await expectError(response, 403, 'FORBIDDEN', ['scope'])
  })
})
