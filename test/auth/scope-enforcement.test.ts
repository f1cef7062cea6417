import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

/** A narrower token for a tenant's own client, from the real token endpoint. */
async function scopedToken(tenant: Tenant, scope: string): Promise<string> {
  const response = await server.fetch('/oauth/token', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${tenant.clientId}:${tenant.clientSecret}`)}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe('scope enforcement', () => {
  let orderId: string
  beforeAll(async () => {
    const user = await acme.fetch('/api/v1/users', {
      method: 'POST',
      json: { name: 'Ann', email: 'ann@acme.example' },
    })
    const { id: userId } = (await user.json()) as { id: string }
    const order = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 100, currency: 'EUR' },
    })
    orderId = ((await order.json()) as { id: string }).id
  })

  const call = (token: string, method: string, path: string, body?: unknown) =>
    server.fetch(path.replace(':id', orderId), {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  it.each([
    ['GET a collection', 'read:orders', 'write:orders delete:orders', 'GET', '/api/v1/orders'],
    ['GET a record', 'read:orders', 'write:orders', 'GET', '/api/v1/orders/:id'],
    ['HEAD a record', 'read:orders', 'write:orders', 'HEAD', '/api/v1/orders/:id'],
    ['POST a record', 'write:orders', 'read:orders delete:orders', 'POST', '/api/v1/orders'],
    ['PATCH a record', 'write:orders', 'read:orders delete:orders', 'PATCH', '/api/v1/orders/:id'],
    ['PUT a record', 'write:orders', 'read:orders', 'PUT', '/api/v1/orders/:id'],
    ['DELETE a record', 'write:orders', 'read:orders delete:orders', 'DELETE', '/api/v1/orders/:id'],
    [
      'DELETE a collection',
      'delete:orders',
      'read:orders write:orders',
      'DELETE',
      '/api/v1/orders?confirm=orders',
    ],
    ['GET the events', 'read:events', 'read:orders', 'GET', '/api/v1/events'],
    ['GET a nested collection', 'read:line-items', 'read:orders', 'GET', '/api/v1/orders/:id/line-items'],
  ])('%s without %s is 403 insufficient_scope naming it', async (_, needed, granted, method, path) => {
    const response = await call(
      await scopedToken(acme, granted),
      method,
      path,
      ['GET', 'HEAD'].includes(method) ? undefined : {},
    )
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="api", error="insufficient_scope", scope="${needed}"`,
    )
    if (method !== 'HEAD')
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN')
  })

  it('lets each scope do what it names', async () => {
    expect((await call(await scopedToken(acme, 'read:orders'), 'GET', '/api/v1/orders/:id')).status).toBe(200)
    const write = await scopedToken(acme, 'write:orders')
    expect((await call(write, 'PATCH', '/api/v1/orders/:id', { status: 'paid' })).status).toBe(200)
    expect(
      (await call(await scopedToken(acme, 'delete:orders'), 'DELETE', '/api/v1/orders?confirm=orders'))
        .status,
    ).toBe(204)
  })
})
