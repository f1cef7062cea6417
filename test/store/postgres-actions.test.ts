import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'

/**
 * Actions on PostgreSQL, through `serve`: the state check and the change are one transaction on the
 * locked row (READ COMMITTED), so racing actions on one order act once; booleans (a post's
 * `published`) move as on SQLite.
 */
const describeWithPostgres = postgresAvailable() ? describe : describe.skip

describeWithPostgres('actions on api-server --db postgres://', () => {
  let postgres: TestPostgres
  let server: ServeProcess
  let token: string
  let userId: string
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
  const post = async (path: string, json: unknown) => {
    const response = await api(path, { method: 'POST', json })
    expect(response.status).toBe(201)
    return (await response.json()) as Record<string, unknown> & { id: string }
  }
  const eventTypes = async (id: string) => {
    const page = (await (await api(`/api/v2/events?resource_id=${id}&sort=created_at`)).json()) as {
      data: { type: string }[]
    }
    return page.data.map((e) => e.type)
  }

  beforeAll(async () => {
    postgres = await startTestPostgres()
    const db = await postgres.database('actions_e2e')
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
    token = ((await response.json()) as { access_token: string }).access_token
    userId = (await post('/api/v2/users', { name: 'Ann', email: 'ann@acme.example' })).id
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    await postgres?.stop()
  })

  it('ships a paid order once when eight requests race: one 200, seven 409, one order.shipped', async () => {
    const order = await post('/api/v2/orders', {
      userId,
      amount: { value: 900, currency: 'EUR' },
      status: 'paid',
    })
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api(`/api/v2/orders/${order.id}/ship`, { method: 'POST' })),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
    const conflict = (await responses.find((r) => r.status === 409)!.json()) as {
      error: { details: { field: string; message: string }[] }
    }
    expect(conflict.error.details).toEqual([{ field: 'status', message: 'is shipped; ship needs paid' }])
    expect(await eventTypes(order.id)).toEqual(['order.created', 'order.shipped'])
  })

  it('replays an action for its Idempotency-Key, answers 412 to a stale If-Match, and publishes a post', async () => {
    const order = await post('/api/v2/orders', { userId, amount: { value: 100, currency: 'EUR' } })
    const cancel = () =>
      api(`/api/v2/orders/${order.id}/cancel`, { method: 'POST', headers: { 'Idempotency-Key': 'c-1' } })
    const [first, again] = [await cancel(), await cancel()]
    expect([first.status, again.status]).toEqual([200, 200])
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(await first.json())
    const stale = await api(`/api/v2/orders/${order.id}/cancel`, {
      method: 'POST',
      headers: { 'If-Match': '"stale"' },
    })
    expect(stale.status).toBe(412)
    const draft = await post('/api/v2/posts', { authorId: userId, title: 'Hello' })
    const published = await api(`/api/v2/posts/${draft.id}/publish`, { method: 'POST', json: {} })
    expect(((await published.json()) as { published: boolean }).published).toBe(true)
    expect((await api(`/api/v2/posts/${draft.id}/publish`, { method: 'POST' })).status).toBe(409)
    expect(await eventTypes(draft.id)).toEqual(['post.created', 'post.published'])
  })
})
