import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from './receiver.ts'

let server: TestServer
let tenant: Tenant
const receivers: Receiver[] = []

beforeAll(async () => {
  server = await startTestServer({
    webhooks: { allowHttp: true, scheduleMs: [200, 200], pollMs: 50, attemptTimeoutMs: 1_000 },
  })
  tenant = await server.tenant()
})
afterAll(async () => {
  for (const r of receivers) r.stop()
  await server.stop()
})

function receiver(answer?: Parameters<typeof startReceiver>[0]): Receiver {
  const r = startReceiver(answer)
  receivers.push(r)
  return r
}

async function createEndpoint(body: Record<string, unknown>) {
  const response = await tenant.fetch('/api/v2/webhook-endpoints', { method: 'POST', json: body })
  expect(response.status).toBe(201)
  return (await response.json()) as Record<string, unknown> & { id: string; secret: string }
}

async function createOrder(headers: Record<string, string> = {}) {
  const user = await tenant.fetch('/api/v2/users', {
    method: 'POST',
    json: { name: 'Ann', email: `ann${crypto.randomUUID()}@example.com`, role: 'member' },
  })
  const { id: userId } = (await user.json()) as { id: string }
  const order = await tenant.fetch('/api/v1/orders', {
    method: 'POST',
    headers,
    json: { userId, amount: 1200, currency: 'EUR' },
  })
  expect(order.status).toBe(201)
  return (await order.json()) as { id: string }
}

async function deliveriesOf(endpointId: string, query = '') {
  const response = await tenant.fetch(`/api/v2/webhook-endpoints/${endpointId}/deliveries${query}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: Record<string, unknown>[] }).data
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`)
    await Bun.sleep(50)
  }
}

describe('webhook delivery', () => {
  test('each matching event arrives signed per Standard Webhooks, and the secret shows only once', async () => {
    const r = receiver()
    const endpoint = await createEndpoint({ url: r.url, eventTypes: ['order.created'] })
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(endpoint.enabled).toBe(true)
    const read = (await (await tenant.fetch(`/api/v2/webhook-endpoints/${endpoint.id}`)).json()) as object
    expect(read).not.toHaveProperty('secret')
    const list = await (await tenant.fetch('/api/v2/webhook-endpoints')).text()
    expect(list).not.toContain(endpoint.secret)
    const events = await (await tenant.fetch('/api/v2/events?resource=webhook-endpoints')).text()
    expect(events).not.toContain(endpoint.secret)
    expect(events).toContain('webhook_endpoint.created')

    const order = await createOrder({ 'X-Request-Id': 'hook-test-order-1' })
    const [delivery] = await r.waitFor(1)
    const verified = new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers) as Record<
      string,
      unknown
    >
    expect(verified.type).toBe('order.created')
    expect((verified.data as { id: string }).id).toBe(order.id)
    expect(delivery!.headers['webhook-id']).toBe(verified.id as string)
    expect(Object.keys(verified)).toEqual(['id', 'type', 'createdAt', 'actor', 'requestId', 'data'])
    // Who made the change, and in which request, as the event log records them.
    expect(verified.actor).toEqual({ type: 'client', id: tenant.clientId })
    expect(verified.requestId).toBe('hook-test-order-1')
    // A wrong secret does not verify.
    expect(() =>
      new Webhook(`whsec_${btoa('x'.repeat(32))}`).verify(delivery!.body, delivery!.headers),
    ).toThrow()

    const [row] = await until(
      () => deliveriesOf(endpoint.id),
      (rows) => rows[0]?.status === 'succeeded',
    )
    expect(row).toMatchObject({
      endpointId: endpoint.id,
      eventId: verified.id,
      eventType: 'order.created',
      status: 'succeeded',
      attempts: 1,
      lastResponseStatus: 204,
      nextAttemptAt: null,
    })
    // Only order.created: the user's creation was not sent.
    await Bun.sleep(300)
    expect(r.received).toHaveLength(1)
  })

  test('failures follow the schedule, then failed; retry sends again with the same webhook-id', async () => {
    let healthy = false
    const r = receiver(() => new Response('no', { status: healthy ? 200 : 500 }))
    const endpoint = await createEndpoint({ url: r.url, eventTypes: ['order.created'] })
    await createOrder()
    // One attempt and two retries (the shortened schedule), then failed.
    const [row] = await until(
      () => deliveriesOf(endpoint.id),
      (rows) => rows[0]?.status === 'failed',
    )
    expect(row).toMatchObject({ attempts: 3, lastResponseStatus: 500, nextAttemptAt: null })
    expect(r.received).toHaveLength(3)
    expect(new Set(r.received.map((d) => d.headers['webhook-id'])).size).toBe(1)

    healthy = true
    const retried = await tenant.fetch(`/api/v2/deliveries/${row!.id as string}/retry`, { method: 'POST' })
    expect(retried.status).toBe(200)
    expect(((await retried.json()) as { status: string }).status).toBe('pending')
    await r.waitFor(4)
    expect(r.received[3]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id'])
    await until(
      () => deliveriesOf(endpoint.id),
      (rows) => rows[0]?.status === 'succeeded',
    )
    const again = await tenant.fetch(`/api/v2/deliveries/${row!.id as string}/retry`, { method: 'POST' })
    expect(again.status).toBe(409)
    const events = (await (await tenant.fetch('/api/v2/events?type=delivery.retried')).json()) as {
      data: unknown[]
    }
    expect(events.data).toHaveLength(1)
  })

  test('rotate-secret: the old and the new secret both verify for the overlap', async () => {
    const r = receiver()
    const endpoint = await createEndpoint({ url: r.url, eventTypes: ['order.created'] })
    const rotated = await tenant.fetch(`/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      method: 'POST',
    })
    expect(rotated.status).toBe(200)
    const { secret } = (await rotated.json()) as { secret: string }
    expect(secret).not.toBe(endpoint.secret)
    await createOrder()
    const [delivery] = await r.waitFor(1)
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    new Webhook(secret).verify(delivery!.body, delivery!.headers)
    new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers)
    const events = await (await tenant.fetch('/api/v2/events?type=webhook_endpoint.secret_rotated')).text()
    expect(events).toContain(endpoint.id)
    expect(events).not.toContain(secret)
  })

  test('test sends a webhook.test event to that endpoint only', async () => {
    const r = receiver()
    const other = receiver()
    const endpoint = await createEndpoint({ url: r.url, eventTypes: ['nothing.ever'] })
    const { secret: otherSecret } = await createEndpoint({ url: other.url, eventTypes: ['nothing.ever'] })
    expect(otherSecret).toBeTruthy()
    const response = await tenant.fetch(`/api/v2/webhook-endpoints/${endpoint.id}/test`, {
      method: 'POST',
      headers: { 'X-Request-Id': 'hook-test-ping-1' },
    })
    expect(response.status).toBe(200)
    const [delivery] = await r.waitFor(1)
    const verified = new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers) as {
      type: string
      actor: unknown
      requestId: unknown
    }
    expect(verified.type).toBe('webhook.test')
    expect(verified.actor).toEqual({ type: 'client', id: tenant.clientId })
    expect(verified.requestId).toBe('hook-test-ping-1')
    await Bun.sleep(300)
    expect(other.received).toHaveLength(0)
  })

  test('a slow endpoint does not hold back another', async () => {
    const slow = receiver(async () => {
      await Bun.sleep(5_000)
      return new Response(null, { status: 204 })
    })
    const fast = receiver()
    await createEndpoint({ url: slow.url, eventTypes: ['order.created'] })
    await createEndpoint({ url: fast.url, eventTypes: ['order.created'] })
    const started = Date.now()
    for (let i = 0; i < 6; i++) await createOrder()
    await fast.waitFor(6, 3_000)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  test('bad URLs are 422 naming url', async () => {
    for (const url of [
      'ftp://example.com/x',
      'not a url',
      'https://user:pw@127.0.0.1/x',
      'http://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:10.0.0.1]/x',
      'https://[fd00::1]/x',
      'https://0xa.0.0.1/x',
      'https://172.16.0.1/x',
      'https://172.31.255.254/x',
      'https://192.168.1.1/x',
      'https://[fe80::1]/x',
      'https://[fc00::1]/x',
    ]) {
      const response = await tenant.fetch('/api/v2/webhook-endpoints', { method: 'POST', json: { url } })
      expect(response.status).toBe(422)
      const body = (await response.json()) as { error: { details: { field: string }[] } }
      expect(body.error.details[0]!.field).toBe('url')
    }
  })
})

describe('reads of deliveries while the worker changes them (the response cache is on)', () => {
  test('shows each change at once, listed, nested in an expanded endpoint and by id', async () => {
    let answer = 500
    const r = receiver(() => new Response(null, { status: answer }))
    const endpoint = await createEndpoint({ url: r.url, eventTypes: ['order.created'] })
    await createOrder()
    await r.waitFor(1)
    const expanded = async () => {
      const response = await tenant.fetch(`/api/v2/webhook-endpoints/${endpoint.id}?expand=deliveries`)
      expect(response.status).toBe(200)
      return ((await response.json()) as { deliveries: { data: Record<string, unknown>[] } }).deliveries.data
    }
    // Read (and, were they kept, cached) while the delivery is still failing.
    const [failing] = await until(
      () => deliveriesOf(endpoint.id),
      (d) => d[0]?.attempts === 1,
    )
    expect((await expanded())[0]!.attempts).toBe(1)
    const byId = () => tenant.fetch(`/api/v2/webhook-endpoints/${endpoint.id}/deliveries/${failing!.id}`)
    expect(((await (await byId()).json()) as { status: string }).status).toBe('pending')
    answer = 204
    await r.waitFor(2)
    // The worker's change appends no event; none of these reads may answer the old state.
    await until(
      () => deliveriesOf(endpoint.id),
      (d) => d[0]?.status === 'succeeded',
      3_000,
    )
    expect((await expanded())[0]!.status).toBe('succeeded')
    expect(((await (await byId()).json()) as { status: string }).status).toBe('succeeded')
  })
})
