import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runAdmin, runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'

/**
 * `api-server` on PostgreSQL, as an operator runs it: `--db postgres://...` for the admin commands
 * and for `serve`, then the API through HTTP. The store contract (test/store/contract.test.ts)
 * covers each statement; this covers the whole path.
 */
const describeWithPostgres = postgresAvailable() ? describe : describe.skip

describeWithPostgres('api-server --db postgres://', () => {
  let postgres: TestPostgres
  let db: string
  let server: ServeProcess
  let token: string
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    })

  beforeAll(async () => {
    postgres = await startTestPostgres()
    const url = new URL(await postgres.database('serve_e2e'))
    // The test server trusts loopback; a password in the URL must still never be shown.
    url.password = 'pw-never-shown'
    db = url.toString()
    await runOk(['migrate'], db)
    await runOk(['org', 'create', '--name', 'Acme'], db)
    const client = JSON.parse(
      await runOk(['client', 'create', '--name', 'svc', '--org', 'Acme', '--json'], db),
    )
    server = await startServe(['--port', '0', '--db', db])
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    })
    expect(response.status).toBe(200)
    token = ((await response.json()) as { access_token: string }).access_token
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    await postgres?.stop()
  })

  it('says it is ready, warns that without Redis limits are per replica, and never shows the password of its database URL', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    expect(server.stderr()).toContain('database postgres://postgres:***@127.0.0.1')
    expect(server.stderr()).toContain('warning: without --redis every replica counts rate limits on its own')
    expect(server.stdout() + server.stderr()).not.toContain('pw-never-shown')
  })

  it('creates once per Idempotency-Key, lists with filters and search, and logs the events', async () => {
    const user = await api('/api/v2/users', {
      method: 'POST',
      json: { name: 'Zoë Crème', email: 'zoe@acme.example' },
    })
    expect(user.status).toBe(201)
    const userId = ((await user.json()) as { id: string }).id
    const order = { userId, amount: { value: 4200, currency: 'EUR' }, status: 'paid' }
    const first = await api('/api/v2/orders', {
      method: 'POST',
      json: order,
      headers: { 'Idempotency-Key': 'k-1' },
    })
    const again = await api('/api/v2/orders', {
      method: 'POST',
      json: order,
      headers: { 'Idempotency-Key': 'k-1' },
    })
    expect(first.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(await first.json())

    const paid = (await (await api('/api/v2/orders?status=paid')).json()) as { data: unknown[] }
    expect(paid.data).toHaveLength(1)
    const found = (await (await api('/api/v2/users?q=creme')).json()) as { data: { id: string }[] }
    expect(found.data.map((u) => u.id)).toEqual([userId])
    const events = (await (await api('/api/v2/events?sort=createdAt')).json()) as { data: { type: string }[] }
    expect(events.data.map((e) => e.type)).toEqual(['user.created', 'order.created'])
  })

  it('keeps its promises under concurrent writes: one write per key, unique values, If-Match', async () => {
    const users = (await (await api('/api/v2/users')).json()) as { data: { id: string }[] }
    const userId = users.data[0]!.id
    const order = { userId, amount: { value: 100, currency: 'EUR' }, status: 'pending' }
    const replays = await Promise.all(
      Array.from({ length: 10 }, () =>
        api('/api/v2/orders', { method: 'POST', json: order, headers: { 'Idempotency-Key': 'race-1' } }),
      ),
    )
    const ids = new Set(await Promise.all(replays.map(async (r) => ((await r.json()) as { id: string }).id)))
    expect(replays.map((r) => r.status)).toEqual(Array(10).fill(201))
    expect(ids.size).toBe(1)
    const pending = (await (await api('/api/v2/orders?status=pending')).json()) as { data: unknown[] }
    expect(pending.data).toHaveLength(1)

    const product = { name: 'Lamp', sku: 'RACE-1', price: { value: 500, currency: 'EUR' } }
    const creates = await Promise.all(
      Array.from({ length: 10 }, () => api('/api/v2/products', { method: 'POST', json: product })),
    )
    expect(creates.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)])

    const created = (await creates.find((r) => r.status === 201)!.json()) as { id: string }
    const tag = (await api(`/api/v2/products/${created.id}`)).headers.get('etag')!
    const patches = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api(`/api/v2/products/${created.id}`, {
          method: 'PATCH',
          json: { name: `Lamp ${i}` },
          headers: { 'If-Match': tag },
        }),
      ),
    )
    expect(patches.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412])
  })

  it('answers GraphQL over the same store, as REST does', async () => {
    const rest = (await (await api('/api/v2/orders?status=paid')).json()) as { data: { id: string }[] }
    const response = await api('/graphql', {
      method: 'POST',
      json: { query: '{ orders(status: paid) { totalCount nodes { id status } } }' },
    })
    const { data } = (await response.json()) as {
      data: { orders: { totalCount: number; nodes: { id: string; status: string }[] } }
    }
    expect(data.orders.totalCount).toBe(rest.data.length)
    expect(data.orders.nodes.map((n) => n.id)).toEqual(rest.data.map((o) => o.id))
  })

  it("reports PostgreSQL's synchronous_commit as its durability, whatever --durability says", async () => {
    // The test server runs with synchronous_commit = off (test/support/postgres.ts).
    expect(server.stderr()).toContain('durability fast')
    const synced = new URL(db)
    synced.searchParams.set('options', '-c synchronous_commit=on')
    for (const args of [[], ['--durability', 'fast']]) {
      const replica = await startServe(['--port', '0', '--db', synced.toString(), ...args])
      try {
        expect(replica.stderr()).toContain('durability full')
      } finally {
        await replica.stop()
      }
    }
  })

  it('shapes reads with fields and expand on PostgreSQL as on SQLite', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by assertions, not types
    type Loose = any
    const orders = (await (await api('/api/v2/orders?status=paid')).json()) as { data: { id: string }[] }
    const orderId = orders.data[0]!.id
    const products = (await (await api('/api/v2/products')).json()) as { data: { id: string }[] }
    for (let i = 0; i < 3; i++) {
      const item = await api(`/api/v2/orders/${orderId}/line-items`, {
        method: 'POST',
        json: { productId: products.data[0]!.id, quantity: i + 1, unitPrice: 100 },
      })
      expect(item.status).toBe(201)
    }
    const path =
      '/api/v2/orders?status=paid&fields=amount,user.name,lineItems.quantity,lineItems.product.sku' +
      '&expand=user,lineItems.product&expand_limit=2'
    const page = (await (await api(path)).json()) as Loose
    const order = page.data[0]
    expect(Object.keys(order)).toEqual(['id', 'amount', 'user', 'lineItems'])
    expect(order.amount).toEqual({ value: 4200, currency: 'EUR' })
    expect(order.user).toEqual({ id: expect.any(String), name: 'Zoë Crème' })
    expect(order.lineItems.data.map((i: Loose) => i.quantity)).toEqual([3, 2])
    expect(order.lineItems.data[0].product).toEqual({ id: products.data[0]!.id, sku: 'RACE-1' })
    expect(order.lineItems.pagination.hasMore).toBe(true)
    const rest = (await (await api(order.lineItems.pagination.next)).json()) as Loose
    expect(rest.data.map((i: Loose) => i.quantity)).toEqual([1])
    expect((await api('/api/v2/orders?fields=currency')).status).toBe(400)
  })

  it('refuses backup, pointing to pg_dump', async () => {
    const run = await runAdmin(['backup', '/tmp/never-written.db'], db)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('pg_dump')
    expect(run.stderr).not.toContain('pw-never-shown')
  })
})
