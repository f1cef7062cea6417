import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from './support/server.ts'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe('a fresh server', () => {
  it('creates and lists an order with a client-credentials token', async () => {
    const acme = await server.tenant()
    const user = await acme.fetch('/api/v1/users', {
      method: 'POST',
      json: { name: 'Ann', email: 'ann@acme.example' },
    })
    expect(user.status).toBe(201)
    const { id: userId } = (await user.json()) as { id: string }
    const order = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 1200, currency: 'EUR' },
    })
    expect(order.status).toBe(201)
    const list = await acme.fetch('/api/v1/orders')
    const body = (await list.json()) as { data: { amount: number }[] }
    expect(body.data.map((o) => o.amount)).toEqual([1200])
  })
})
