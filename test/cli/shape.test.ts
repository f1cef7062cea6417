import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from '../support/server.ts'
import { created, type Env, loggedInEnv, type Order, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli } from './harness.ts'

let server: TestServer
let env: Env
let orders: Order[]
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  const tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  userId = await seedUser(tenant, 'Grace')
  orders = await seedOrders(tenant, userId, [
    { amount: 50, status: 'paid' },
    { amount: 70, status: 'pending' },
  ])
  const product = await created(
    await tenant.fetch('/api/v1/products', {
      method: 'POST',
      json: { name: 'Lamp', sku: 'LAMP-1', price: 900, currency: 'EUR' },
    }),
  )
  await created(
    await tenant.fetch(`/api/v1/orders/${orders[0]!.id}/line-items`, {
      method: 'POST',
      json: { productId: product.id, quantity: 3, unitPrice: 300 },
    }),
  )
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('api list and api get with --fields and --expand', () => {
  it('lists only the fields asked for, with related records inline', async () => {
    const run = await runCli(['list', 'orders', '--fields', 'amount,user.name', '--expand', 'user'], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual([
      { id: orders[1]!.id, amount: { value: 70, currency: 'EUR' }, user: { id: userId, name: 'Grace' } },
      { id: orders[0]!.id, amount: { value: 50, currency: 'EUR' }, user: { id: userId, name: 'Grace' } },
    ])
    expect(run.requests[0]!.url.search).toContain('fields=amount%2Cuser.name&expand=user')
  })

  it('shows the fields sent as table columns', async () => {
    const run = await runCli(['list', 'orders', '--fields', 'status', '--format', 'table'], { env })
    expect(run.code).toBe(0)
    expect(run.stdout.split('\n')[0]!.trim().split(/\s+/)).toEqual(['ID', 'STATUS'])
  })

  it('gets one record with a nested collection expanded two levels deep', async () => {
    const run = await runCli(
      [
        'get',
        'orders',
        orders[0]!.id,
        '--expand',
        'lineItems.product',
        '--fields',
        'lineItems.quantity,lineItems.product.sku',
      ],
      { env },
    )
    expect(run.code).toBe(0)
    const order = JSON.parse(run.stdout)
    expect(order.id).toBe(orders[0]!.id)
    expect(order.lineItems.data).toEqual([
      { id: expect.any(String), quantity: 3, product: { id: expect.any(String), sku: 'LAMP-1' } },
    ])
    expect(order.lineItems.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null, next: null })
  })

  it('reports the server refusing an unknown field or relation, naming it', async () => {
    const field = await runCli(['list', 'orders', '--fields', 'currency'], { env })
    expect(field.code).not.toBe(0)
    expect(field.stderr).toContain('currency')
    const relation = await runCli(['get', 'orders', orders[0]!.id, '--expand', 'customer'], { env })
    expect(relation.code).not.toBe(0)
    expect(relation.stderr).toContain('customer')
    expect((await runCli(['list', 'orders', '--fields'], { env })).code).not.toBe(0)
  })

  it('names --fields and --expand, with the collection relations, in api list --help', async () => {
    const help = await runCli(['list', 'orders', '--help'], { env })
    expect(help.stdout).toContain('--fields <names>')
    expect(help.stdout).toContain('(user, lineItems)')
  })
})
