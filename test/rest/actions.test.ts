import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { valuesOf } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createOrder, createPost, type Entity, expectError, readJson } from './fixtures.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')

let server: TestServer
let acme: Tenant
let globex: Tenant
let readOnly: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
  readOnly = await server.tenant({ scope: ['read:orders', 'read:events'] })
})
afterAll(() => server.stop())

let keys = 0
const newKey = () => `action-${Date.now()}-${++keys}`

/** An order of acme in `status` (set through PATCH unless pending), as v2 shows it. */
async function orderIn(status: string, t: Tenant = acme): Promise<Entity> {
  const order = await createOrder(t)
  const response =
    status === 'pending'
      ? await t.fetch(`/api/v2/orders/${order.id}`)
      : await t.fetch(`/api/v2/orders/${order.id}`, { method: 'PATCH', json: { status } })
  expect(response.status).toBe(200)
  return readJson(response)
}

const act = (path: string, init: RequestInit & { json?: unknown } = {}, t: Tenant = acme) =>
  t.fetch(path, { method: 'POST', ...init })

async function eventsOf(id: string): Promise<Entity[]> {
  const response = await acme.fetch(`/api/v2/events?resource_id=${id}&sort=created_at`)
  expect(response.status).toBe(200)
  return (await readJson<{ data: Entity[] }>(response)).data
}

/** Contract, "Actions": the states each order action may start from. */
const ORDER_ACTIONS: Record<string, { from: string[]; to: string }> = {
  cancel: { from: ['pending', 'paid'], to: 'cancelled' },
  ship: { from: ['paid'], to: 'shipped' },
  deliver: { from: ['shipped'], to: 'delivered' },
}

describe('POST /api/v2/orders/{id}/{action}', () => {
  it('cancels a pending order: 200 with the whole record, its ETag, and order.cancelled in the log', async () => {
    const order = await orderIn('pending')
    const response = await act(`/api/v2/orders/${order.id}/cancel`)
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body).toEqual({ ...order, status: 'cancelled', updatedAt: body.updatedAt })
    expect(body.updatedAt).not.toBe(order.updatedAt)
    const got = await acme.fetch(`/api/v2/orders/${order.id}`)
    expect(await readJson(got)).toEqual(body)
    expect(response.headers.get('etag')).toBe(got.headers.get('etag'))
    expect(response.headers.get('last-modified')).toBe(got.headers.get('last-modified'))
    const events = await eventsOf(order.id)
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cancelled'])
    expect(events[1]!.data).toEqual(body)
  })

  const cases = Object.entries(ORDER_ACTIONS).flatMap(([action, { from, to }]) =>
    ORDER_STATUSES.map((status) => ({ action, status, allowed: from.includes(status), to })),
  )
  it.each(cases)('$action from $status: allowed $allowed', async ({ action, status, allowed, to }) => {
    const order = await orderIn(status)
    const response = await act(`/api/v2/orders/${order.id}/${action}`, { json: {} })
    if (allowed) {
      expect(response.status).toBe(200)
      expect((await readJson(response)).status).toBe(to)
      return
    }
    const error = await expectError(response, 409, 'CONFLICT', ['status'])
    expect(error.error.details[0]!.message).toStartWith(`is ${status};`)
    expect(error.error.message).toContain(status)
    const after = await readJson(await acme.fetch(`/api/v2/orders/${order.id}`))
    expect(after).toEqual(order)
    expect((await eventsOf(order.id)).length).toBe(status === 'pending' ? 1 : 2)
  })

  it('takes an empty body with or without a Content-Type, and {}', async () => {
    const order = await orderIn('paid')
    expect((await act(`/api/v2/orders/${order.id}/ship`, { body: '' })).status).toBe(200)
    const empty = await act(`/api/v2/orders/${order.id}/deliver`, {
      body: '',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(empty.status).toBe(200)
    const other = await orderIn('paid')
    expect(
      (
        await act(`/api/v2/orders/${other.id}/cancel`, {
          body: ' {} ',
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(200)
  })

  it('rejects a body with fields (422, a detail per field), another JSON value (422), bad JSON (400) and text (415)', async () => {
    const order = await orderIn('paid')
    const path = `/api/v2/orders/${order.id}/ship`
    await expectError(await act(path, { json: { status: 'shipped', note: 'x' } }), 422, 'VALIDATION_ERROR', [
      'status',
      'note',
    ])
    await expectError(await act(path, { json: [] }), 422, 'VALIDATION_ERROR', ['body'])
    await expectError(await act(path, { json: null }), 422, 'VALIDATION_ERROR', ['body'])
    await expectError(
      await act(path, { body: '{"a":', headers: { 'Content-Type': 'application/json' } }),
      400,
      'BAD_REQUEST',
    )
    await expectError(
      await act(path, { body: 'ship it', headers: { 'Content-Type': 'text/plain' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    await expectError(await act(`${path}?force=1`), 400, 'BAD_REQUEST', ['force'])
    expect((await readJson(await acme.fetch(`/api/v2/orders/${order.id}`))).status).toBe('paid')
  })

  it('answers 404 for an unknown action, an action of another collection, an unknown or malformed id', async () => {
    const order = await orderIn('paid')
    await expectError(await act(`/api/v2/orders/${order.id}/refund`), 404, 'NOT_FOUND')
    await expectError(await act(`/api/v2/orders/${order.id}/publish`), 404, 'NOT_FOUND')
    const product = await readJson(
      await acme.fetch('/api/v2/products', {
        method: 'POST',
        json: { name: 'Mug', sku: newKey(), price: { value: 100, currency: 'EUR' } },
      }),
    )
    await expectError(await act(`/api/v2/products/${product.id}/cancel`), 404, 'NOT_FOUND')
    await expectError(await act(`/api/v2/orders/ord_0${'a'.repeat(25)}/cancel`), 404, 'NOT_FOUND')
    await expectError(await act('/api/v2/orders/not-an-id/cancel'), 404, 'NOT_FOUND')
  })

  it('answers other methods with 405 and Allow: POST, OPTIONS, and OPTIONS with 204', async () => {
    const order = await orderIn('paid')
    const path = `/api/v2/orders/${order.id}/ship`
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'QUERY']) {
      const response = await acme.fetch(path, { method })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST, OPTIONS')
    }
    const options = await acme.fetch(path, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('POST, OPTIONS')
  })

  it('needs a token (401) with write:orders (403), and answers 403 for an order of another organization', async () => {
    const order = await orderIn('paid')
    const path = `/api/v2/orders/${order.id}/ship`
    expect((await server.fetch(path, { method: 'POST' })).status).toBe(401)
    const denied = await act(path, {}, readOnly)
    await expectError(denied, 403, 'FORBIDDEN')
    expect(denied.headers.get('www-authenticate')).toContain('scope="write:orders"')
    await expectError(await act(path, {}, globex), 403, 'FORBIDDEN')
    expect((await readJson(await acme.fetch(`/api/v2/orders/${order.id}`))).status).toBe('paid')
  })

  it('answers 412 to a stale If-Match and changes nothing; the current ETag of the version passes', async () => {
    const order = await orderIn('paid')
    const path = `/api/v2/orders/${order.id}/ship`
    await expectError(await act(path, { headers: { 'If-Match': '"stale"' } }), 412, 'PRECONDITION_FAILED')
    expect((await eventsOf(order.id)).map((e) => e.type)).toEqual(['order.created', 'order.updated'])
    // The v1 tag is another representation's: it does not match a v2 request.
    const v1 = (await acme.fetch(`/api/v1/orders/${order.id}`)).headers.get('etag')!
    expect((await act(path, { headers: { 'If-Match': v1 } })).status).toBe(412)
    const v2 = (await acme.fetch(`/api/v2/orders/${order.id}`)).headers.get('etag')!
    expect((await act(path, { headers: { 'If-Match': v2 } })).status).toBe(200)
  })

  it('replays the first answer for a repeated Idempotency-Key, acting once', async () => {
    const order = await orderIn('pending')
    const key = newKey()
    const path = `/api/v2/orders/${order.id}/cancel`
    const first = await act(path, { headers: { 'Idempotency-Key': key } })
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstBody = await first.text()
    // The order is cancelled now: without the key this would be 409; with it, the first answer.
    const again = await act(path, { json: {}, headers: { 'Idempotency-Key': key } })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(await again.text()).toBe(firstBody)
    expect((await eventsOf(order.id)).map((e) => e.type)).toEqual(['order.created', 'order.cancelled'])
    await expectError(await act(path), 409, 'CONFLICT', ['status'])
    // The same key for another request (another action) is 422.
    await expectError(
      await act(`/api/v2/orders/${order.id}/ship`, { headers: { 'Idempotency-Key': key } }),
      422,
      'VALIDATION_ERROR',
      ['Idempotency-Key'],
    )
  })

  it('keeps no key for a failed action: the corrected retry with the same key acts', async () => {
    const order = await orderIn('pending')
    const key = newKey()
    const path = `/api/v2/orders/${order.id}/ship`
    expect((await act(path, { headers: { 'Idempotency-Key': key } })).status).toBe(409)
    await acme.fetch(`/api/v2/orders/${order.id}`, { method: 'PATCH', json: { status: 'paid' } })
    const retry = await act(path, { headers: { 'Idempotency-Key': key } })
    expect(retry.status).toBe(200)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
  })

  it('gives one 200 and 409s to concurrent ships of one order, and logs one order.shipped', async () => {
    const order = await orderIn('paid')
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => act(`/api/v2/orders/${order.id}/ship`)),
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
    const shipped = (await eventsOf(order.id)).filter((e) => e.type === 'order.shipped')
    expect(shipped).toHaveLength(1)
  })

  it('lets concurrent cancel and ship of a paid order end in one state, with one event', async () => {
    const order = await orderIn('paid')
    const [cancel, ship] = await Promise.all([
      act(`/api/v2/orders/${order.id}/cancel`),
      act(`/api/v2/orders/${order.id}/ship`),
    ])
    expect([cancel.status, ship.status].sort()).toEqual([200, 409])
    const final = await readJson(await acme.fetch(`/api/v2/orders/${order.id}`))
    expect(final.status).toBe(cancel.status === 200 ? 'cancelled' : 'shipped')
    const types = (await eventsOf(order.id)).map((e) => e.type)
    expect(types.filter((t) => t !== 'order.created' && t !== 'order.updated')).toHaveLength(1)
  })
})

describe('POST /api/v1/orders/{id}/{action}', () => {
  it('acts in v1 too, answering the v1 shape with its deprecation headers', async () => {
    const order = await orderIn('paid')
    const response = await act(`/api/v1/orders/${order.id}/ship`)
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body.status).toBe('shipped')
    expect(typeof body.amount).toBe('number')
    expect(response.headers.get('deprecation')).toStartWith('@')
    expect(response.headers.get('link')).toContain(`/api/v2/orders/${order.id}/ship`)
  })
})

describe('POST /api/v2/posts/{id}/publish and unpublish', () => {
  it('publishes a draft, refuses to publish it twice (409 naming published), and unpublishes it', async () => {
    const post = await createPost(acme)
    expect(post.published).toBe(false)
    const published = await act(`/api/v2/posts/${post.id}/publish`)
    expect(published.status).toBe(200)
    expect((await readJson(published)).published).toBe(true)
    const twice = await expectError(await act(`/api/v2/posts/${post.id}/publish`), 409, 'CONFLICT', [
      'published',
    ])
    expect(twice.error.details[0]!.message).toBe('is true; publish needs false')
    expect(twice.error.message).toBe('This post cannot publish: it is already published.')
    const unpublished = await act(`/api/v2/posts/${post.id}/unpublish`)
    expect((await readJson(unpublished)).published).toBe(false)
    const again = await expectError(await act(`/api/v2/posts/${post.id}/unpublish`), 409, 'CONFLICT', [
      'published',
    ])
    expect(again.error.message).toBe('This post cannot unpublish: it is not published.')
    expect((await eventsOf(post.id)).map((e) => e.type)).toEqual([
      'post.created',
      'post.published',
      'post.unpublished',
    ])
  })
})
