import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { newId } from '../../shared/ids.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

describe('organization isolation', () => {
  let order: { id: string; userId: string }
  let empty: Tenant
  beforeAll(async () => {
    empty = await server.tenant()
    const user = await acme.fetch('/api/v1/users', {
      method: 'POST',
      json: { name: 'Bo', email: 'bo@acme.example' },
    })
    const { id: userId } = (await user.json()) as { id: string }
    const created = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 7, currency: 'EUR' },
    })
    order = (await created.json()) as { id: string; userId: string }
  })

  it.each(['orders', 'users', 'events', 'line-items'])(
    'lists no %s of another organization',
    async (name) => {
      const response = await empty.fetch(`/api/v1/${name}`)
      expect(response.status).toBe(200)
      expect(((await response.json()) as { data: unknown[] }).data).toEqual([])
    },
  )

  it.each([
    ['GET', undefined],
    ['PATCH', { status: 'paid' }],
    ['PUT', { userId: newId('usr'), amount: 1, currency: 'EUR' }],
    ['DELETE', undefined],
  ])("answers %s on another organization's order with 403", async (method, json) => {
    const response = await empty.fetch(`/api/v1/orders/${order.id}`, { method, json })
    expect(response.status).toBe(403)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN')
  })

  it("answers another organization's nested collection with 403", async () => {
    expect((await empty.fetch(`/api/v1/orders/${order.id}/line-items`)).status).toBe(403)
  })

  it("refuses a reference to another organization's user with 422", async () => {
    const response = await empty.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId: order.userId, amount: 1, currency: 'EUR' },
    })
    expect(response.status).toBe(422)
  })

  it("deletes nothing of another organization's in a bulk delete", async () => {
    const response = await empty.fetch('/api/v1/orders?confirm=orders', { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.headers.get('deleted-count')).toBe('0')
    const still = await acme.fetch(`/api/v1/orders/${order.id}`)
    expect(still.status).toBe(200)
    expect(((await still.json()) as { amount: number }).amount).toBe(7)
  })
})
