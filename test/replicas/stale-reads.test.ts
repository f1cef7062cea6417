/**
 * The response cache never answers with the old state: a write acknowledged by one server is read
 * by another on the next request, while other writers run. Two servers on one database: on SQLite
 * two processes' worth of connections to one file (`npm test`), on PostgreSQL two replicas whose
 * change notifications arrive whenever they do (`npm run test:postgres`). REST reads and GraphQL
 * queries alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { onPostgres, statementsOf } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

type Order = { id: string; amount: number; updatedAt: string }
type Page = { data: Order[] }

/** Rounds of write-then-read; each reads a cached answer first, so there is one to go stale. */
const ROUNDS = onPostgres ? 600 : 1500
const GRAPHQL_AMOUNTS =
  'query Amounts($id: ID!) { order(id: $id) { id amount } orders(status: [pending], first: 100) { nodes { id amount } } }'

describe('response cache across servers on one database', () => {
  let server: TestServer
  let second: RunningServer
  let tenant: Tenant
  let userId: string
  const through = (base: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers)
    headers.set('Authorization', `Bearer ${tenant.token}`)
    if (init.json !== undefined) headers.set('Content-Type', 'application/json')
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body
    return fetch(`${base}${path}`, { ...init, headers, body })
  }

  beforeAll(async () => {
    server = await startTestServer()
    // The same database and issuer: a token of one is good on the other, as behind a balancer.
    second = await serve({
      host: '127.0.0.1',
      port: 0,
      db: server.dbPath,
      baseUrl: server.url,
      rateLimit: 1_000_000,
      logger: createLogger('error', (line) => console.error(line)),
      ...(onPostgres && process.env.API_TEST_REDIS_URL ? { redis: process.env.API_TEST_REDIS_URL } : {}),
    })
    tenant = await server.tenant()
    const user = await tenant.fetch('/api/v1/users', {
      method: 'POST',
      json: { name: 'Ann', email: 'ann@example.com' },
    })
    userId = ((await user.json()) as { id: string }).id
  }, 60_000)
  afterAll(async () => {
    await second?.stop()
    await server?.stop()
  })

  const newOrder = async (base: string, amount: number, status = 'pending'): Promise<Order> => {
    const response = await through(base, '/api/v1/orders', {
      method: 'POST',
      json: { userId, amount, currency: 'EUR', status },
    })
    expect(response.status).toBe(201)
    return (await response.json()) as Order
  }

  /** The order's amount as a GraphQL query reads it, by id and in a list (one cached answer for both). */
  const graphqlAmounts = async (base: string, id: string) => {
    const response = await through(base, '/graphql', {
      method: 'POST',
      json: { query: GRAPHQL_AMOUNTS, variables: { id } },
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as {
      data: { order: Order; orders: { nodes: Order[] } }
      errors?: unknown
    }
    expect(body.errors).toBeUndefined()
    return {
      one: body.data.order.amount,
      listed: body.data.orders.nodes.find((o) => o.id === id)?.amount,
    }
  }

  it('answers a repeated read without running the read again', async () => {
    const order = await newOrder(server.url, 1)
    const path = `/api/v1/orders/${order.id}`
    const first = await through(second.url, path)
    expect(first.status).toBe(200)
    const statements = await statementsOf(server.sql, async () => {
      const again = await through(second.url, path)
      expect(again.status).toBe(200)
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
      expect(await again.json()).toEqual(await first.json())
    })
    expect(statements.filter((sql) => /FROM orders/.test(sql))).toEqual([])
  })

  it('answers a repeated GraphQL query without running it again', async () => {
    const order = await newOrder(server.url, 3)
    expect(await graphqlAmounts(second.url, order.id)).toEqual({ one: 3, listed: 3 })
    const statements = await statementsOf(server.sql, async () => {
      expect(await graphqlAmounts(second.url, order.id)).toEqual({ one: 3, listed: 3 })
    })
    expect(statements.filter((sql) => /FROM orders/.test(sql))).toEqual([])
  })

  it('never shows the old state after a write through the other server, under concurrent writers', async () => {
    const servers = [server.url, second.url]
    const orders = [await newOrder(server.url, 0), await newOrder(second.url, 0)]
    // Concurrent writers: one in this organization, always through the server being written to
    // (the reading one must learn of every change from the database, not from its own writes),
    // and two in another organization through both.
    let writing = true
    let writeIndex = 0
    const other = await server.tenant()
    const otherUser = (await (
      await other.fetch('/api/v1/users', { method: 'POST', json: { name: 'Bo', email: 'bo@example.com' } })
    ).json()) as { id: string }
    const writers = [
      (async () => {
        // Orders outside the list read below.
        while (writing) await newOrder(servers[writeIndex]!, 7, 'paid')
      })(),
      ...servers.map(async (base) => {
        while (writing) {
          const response = await fetch(`${base}/api/v1/orders`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${other.token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ userId: otherUser.id, amount: 1, currency: 'EUR', status: 'pending' }),
          })
          expect(response.status).toBe(201)
        }
      }),
    ]
    const stale: string[] = []
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const order = orders[round % 2]!
        writeIndex = round % 2
        const writeTo = servers[writeIndex]!
        const readFrom = servers[(round + 1) % 2]!
        const path = `/api/v1/orders/${order.id}`
        const list = '/api/v1/orders?status=pending&limit=100'
        // Cached on the reading server, then changed through the other one.
        const before = await through(readFrom, path)
        const tag = before.headers.get('etag')!
        await through(readFrom, list)
        await graphqlAmounts(readFrom, order.id)
        const patched = await through(writeTo, path, { method: 'PATCH', json: { amount: round } })
        expect(patched.status).toBe(200)
        const after = await through(readFrom, path, { headers: { 'If-None-Match': tag } })
        if (after.status !== 200) stale.push(`round ${round}: GET by id answered ${after.status}`)
        else if (((await after.json()) as Order).amount !== round) stale.push(`round ${round}: GET by id`)
        const page = (await (await through(readFrom, list)).json()) as Page
        if (page.data.find((o) => o.id === order.id)?.amount !== round) stale.push(`round ${round}: list`)
        const graphql = await graphqlAmounts(readFrom, order.id)
        if (graphql.one !== round) stale.push(`round ${round}: GraphQL order(id:)`)
        if (graphql.listed !== round) stale.push(`round ${round}: GraphQL orders`)
      }
    } finally {
      writing = false
      await Promise.all(writers)
    }
    expect(stale).toEqual([])
  }, 240_000)
})

describe('serve --no-cache', () => {
  let server: TestServer
  let tenant: Tenant
  beforeAll(async () => {
    server = await startTestServer({ cacheMb: 0 })
    tenant = await server.tenant()
  })
  afterAll(() => server?.stop())

  it('reads the database on every request', async () => {
    const response = await tenant.fetch('/api/v1/orders?limit=5')
    expect(response.status).toBe(200)
    const statements = await statementsOf(server.sql, async () => {
      expect((await tenant.fetch('/api/v1/orders?limit=5')).status).toBe(200)
    })
    expect(statements.filter((sql) => /FROM orders/.test(sql))).toHaveLength(1)
  })
})
