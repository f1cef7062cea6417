import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { batchError, batchOk, sendBatch } from './support.ts'

/**
 * Batches on the built-in example: v2's money objects in bodies, answers and references; a
 * webhook endpoint's signing secret shown once, as its REST create shows it; and a write whose
 * collection checks its values outside the database before the transaction (a webhook URL's
 * lookup) refusing references.
 */

const PUBLIC = ['93.184.216.34']
const lookups: string[] = []
let server: TestServer
let tenant: Tenant

beforeAll(async () => {
  server = await startTestServer({
    webhooks: {
      resolve: async (host) => {
        lookups.push(host)
        return PUBLIC
      },
    },
  })
  tenant = await server.tenant()
})

afterAll(() => server?.stop())

const user = {
  method: 'POST',
  path: '/api/v2/users',
  body: { name: 'Ada', email: 'ada@example.com' },
  ref: 'u',
}

describe('a batch on the example', () => {
  it('takes and answers money as {value, currency}, and refers to its members', async () => {
    const results = await batchOk(tenant, [
      user,
      {
        method: 'POST',
        path: '/api/v2/orders',
        body: { userId: '${u.id}', amount: { value: 4200, currency: 'EUR' } },
        ref: 'o',
      },
      { method: 'POST', path: '/api/v2/orders', body: { userId: '${u.id}', amount: '${o.amount}' } },
      {
        method: 'POST',
        path: '/api/v2/orders',
        body: { userId: '${u.id}', amount: { value: '${o.amount.value}', currency: 'USD' } },
      },
    ])
    expect(results.slice(1).map((r) => r.body!.amount)).toEqual([
      { value: 4200, currency: 'EUR' },
      { value: 4200, currency: 'EUR' },
      { value: 4200, currency: 'USD' },
    ])
    const read = await tenant.fetch(`/api/v2/orders/${results[1]!.body!.id}`)
    expect(await read.json()).toEqual(results[1]!.body!)
  })

  it('names a money member in v2’s words when it is not valid', async () => {
    const response = await sendBatch(tenant, [
      { ...user, body: { name: 'Bob', email: 'bob@example.com' } },
      {
        method: 'POST',
        path: '/api/v2/orders',
        body: { userId: '${u.id}', amount: { value: 1, currency: 'EURO' } },
      },
    ])
    expect(await batchError(response)).toMatchObject({
      status: 422,
      fields: ['operations[1].body.amount.currency'],
    })
    expect(await server.sql.count('users', tenant.orgId)).toBe(1)
  })

  it('refuses an object inside a text with 422 naming the place', async () => {
    const response = await sendBatch(tenant, [
      { ...user, body: { name: 'Cy', email: 'cy@example.com' } },
      {
        method: 'POST',
        path: '/api/v2/orders',
        body: { userId: '${u.id}', amount: { value: 5, currency: 'EUR' } },
        ref: 'o',
      },
      { method: 'PATCH', path: '/api/v2/users/${u.id}', body: { name: 'paid ${o.amount}' } },
    ])
    expect(await batchError(response)).toMatchObject({ status: 422, fields: ['operations[2].body.name'] })
  })

  it('shows a new webhook endpoint’s signing secret once, as its REST create does, checked before the transaction', async () => {
    const before = lookups.length
    const [endpoint] = await batchOk(tenant, [
      {
        method: 'POST',
        path: '/api/v2/webhook-endpoints',
        body: { url: 'https://hooks.example/in', enabled: false },
        ref: 'w',
      },
      { method: 'PATCH', path: '/api/v2/webhook-endpoints/${w.id}', body: { description: 'from a batch' } },
    ])
    expect(endpoint!.body!.secret).toStartWith('whsec_')
    expect(lookups.slice(before)).toEqual(['hooks.example'])
    const read = (await (
      await tenant.fetch(`/api/v2/webhook-endpoints/${endpoint!.body!.id}`)
    ).json()) as object
    expect(read).not.toHaveProperty('secret')
  })

  it('keeps a keyed answer that shows a secret sealed, and replays it with the secret', async () => {
    const key = `secret-${crypto.randomUUID()}`
    const operations = [
      {
        method: 'POST',
        path: '/api/v2/webhook-endpoints',
        body: { url: 'https://kept.example/in', enabled: false },
      },
    ]
    const first = await batchOk(tenant, operations, { 'Idempotency-Key': key })
    const again = await batchOk(tenant, operations, { 'Idempotency-Key': key })
    expect(again).toEqual(first)
    const secret = first[0]!.body!.secret as string
    const kept = await server.sql.get<{ body: string }>(
      'SELECT body FROM idempotency_keys WHERE key = ?',
      key,
    )
    expect(kept!.body).toStartWith('sealed:')
    expect(kept!.body).not.toContain(secret)
  })

  it('refuses a reference in a webhook endpoint’s body: its URL is checked before any result exists', async () => {
    const before = await server.sql.count('webhook_endpoints', tenant.orgId)
    const response = await sendBatch(tenant, [
      {
        method: 'POST',
        path: '/api/v2/webhook-endpoints',
        body: { url: 'https://a.example/in', enabled: false },
        ref: 'w',
      },
      { method: 'POST', path: '/api/v2/webhook-endpoints', body: { url: '${w.url}', enabled: false } },
    ])
    expect(await batchError(response)).toMatchObject({ status: 422, fields: ['operations[1].body'] })
    expect(await server.sql.count('webhook_endpoints', tenant.orgId)).toBe(before)
  })
})
