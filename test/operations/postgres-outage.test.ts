import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { UNAVAILABLE_MESSAGE } from '../../server/graphql/errors.ts'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { DATABASE_UNAVAILABLE } from '../../server/store/availability.ts'
import { EVENT_ORDER_LOCK } from '../../server/store/postgres/event-log.ts'
import { openPostgresStore } from '../../server/store/postgres/store.ts'
import type { Store } from '../../server/store/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'
import { clientToken } from '../support/tokens.ts'

/**
 * PostgreSQL goes away under a serving replica and comes back (`pg_ctl -m immediate stop`, then
 * started again on the same port): a PostgreSQL of the test's own, whatever the suite runs on.
 * Writes cut off mid-transaction and requests made while it is down answer the contract's 503 with
 * Retry-After, the outage is logged once when it starts and once when it ends, `/readyz` says so
 * meanwhile, and each write retried with its Idempotency-Key afterwards happens exactly once.
 */
const describeWithPostgres = postgresAvailable() ? describe : describe.skip

const UNAVAILABLE_BODY = { error: { code: 'UNAVAILABLE', message: DATABASE_UNAVAILABLE, details: [] } }
const LOST = 'database unreachable: requests answer 503 until it answers again'
const BACK = 'database answers again'

async function until(check: () => Promise<boolean> | boolean, ms = 15_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await Bun.sleep(100)) {
    if (await check()) return true
  }
  return check()
}

describeWithPostgres('a serving replica while PostgreSQL restarts', () => {
  let postgres: TestPostgres
  let db: string
  let admin: SQL
  let server: RunningServer
  let store: Store
  let token: string
  let orgId: string
  const lines: Record<string, unknown>[] = []
  const logged = (msg: string) => lines.filter((line) => line.msg === msg)

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
  const create = (key: string) =>
    api('/api/v2/users', {
      method: 'POST',
      json: { name: `Writer ${key}`, email: `${key}@acme.example` },
      headers: { 'Idempotency-Key': key },
    })

  /** Event ids a subscription (GraphQL over server-sent events) receives, as they come. */
  const subscribe = async () => {
    const received: string[] = []
    const response = await api('/graphql', {
      method: 'POST',
      json: { query: 'subscription { events(types: ["user.created"]) { id } }' },
      headers: { Accept: 'text/event-stream' },
    })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const stream = { received, ended: false, cancel: () => reader.cancel() }
    void (async () => {
      let text = ''
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
        if (done) break
        text += new TextDecoder().decode(value)
        const blocks = text.split('\n\n')
        text = blocks.pop()!
        for (const block of blocks) {
          const data = block.split('\n').find((line) => line.startsWith('data: '))
          if (!block.includes('event: next') || !data) continue
          received.push((JSON.parse(data.slice(6)) as { data: { events: { id: string } } }).data.events.id)
        }
      }
      stream.ended = true
    })()
    return stream
  }

  beforeAll(async () => {
    postgres = await startTestPostgres({ own: true })
    db = await postgres.database('outage')
    server = await serve({
      host: '127.0.0.1',
      port: 0,
      db,
      rateLimit: 0,
      logger: createLogger('info', (line) => lines.push(JSON.parse(line))),
      // The jobs look often, so that they meet the outage many times over.
      housekeeping: { firstAfterMs: 100, everyMs: 200 },
      webhooks: { pollMs: 100 },
    })
    store = openPostgresStore(db, exampleSchema())
    const org = await store.orgs.create('Acme')
    orgId = org.id
    const { client, secret } = await store.clients.create({ name: 'svc', orgId, public: false })
    token = await clientToken(server.url, { id: client.id, secret: secret! })
    admin = new SQL(db, { max: 2 })
  }, 60_000)
  afterAll(async () => {
    await admin?.close()
    await store?.close()
    await server?.stop()
    await postgres?.stop()
  })

  it('answers 503 UNAVAILABLE with Retry-After, logs the outage once each way, and performs each retried write once', async () => {
    expect((await create('before')).status).toBe(201)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    const subscription = await subscribe()

    // Three creates held inside their transactions: the event log's lock is taken elsewhere.
    let release!: () => void
    let locked!: () => void
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve
    })
    const holder = admin
      .begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK})`
        locked()
        await new Promise<void>((resolve) => {
          release = resolve
        })
      })
      .catch(() => {})
    await isLocked
    const keys = ['cut-1', 'cut-2', 'cut-3']
    const inFlight = keys.map((key) => create(key))
    const waiting = async () => {
      const [row] =
        await admin`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`
      return row.n >= keys.length
    }
    expect(await until(waiting)).toBe(true)
    lines.length = 0

    await postgres.stopServer('immediate')
    release()
    await holder

    const answers = [...(await Promise.all(inFlight)), await create('while-down')]
    for (const answer of answers) {
      expect(answer.status).toBe(503)
      expect(answer.headers.get('retry-after')).toBe('1')
      const text = await answer.text()
      expect(JSON.parse(text)).toEqual(UNAVAILABLE_BODY)
      // Nothing of the driver, the SQL or a stack.
      expect(text).not.toMatch(/postgres|ERR_|closed|select |insert |\n\s+at /i)
    }
    // Reads, GraphQL and the token endpoint say the same in their own shapes.
    const read = await api('/api/v2/users')
    expect(read.status).toBe(503)
    expect(await read.json()).toEqual(UNAVAILABLE_BODY)
    const graphql = await api('/graphql', { method: 'POST', json: { query: '{ users { totalCount } }' } })
    expect(graphql.status).toBe(200)
    const { errors } = (await graphql.json()) as { errors: { message: string; extensions: unknown }[] }
    expect(errors[0]).toMatchObject({
      message: UNAVAILABLE_MESSAGE,
      extensions: { code: 'INTERNAL', reason: 'UNAVAILABLE', retryAfter: 1 },
    })
    const tokenRequest = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa('clt_x:secret')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    })
    expect(tokenRequest.status).toBe(503)
    expect(tokenRequest.headers.get('retry-after')).toBe('1')
    expect(((await tokenRequest.json()) as { error: string }).error).toBe('temporarily_unavailable')
    const ready = await fetch(`${server.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'the database does not answer' })
    // The webhook worker and housekeeping keep looking meanwhile, every 100 and 200 ms.
    await Bun.sleep(1_000)

    await postgres.startAgain()
    expect(await until(async () => (await fetch(`${server.url}/readyz`)).status === 200)).toBe(true)
    expect(await until(() => logged(BACK).length > 0)).toBe(true)

    // Retried with their keys: each performed now, once; a second retry replays it.
    for (const key of [...keys, 'while-down']) {
      const retried = await create(key)
      expect(retried.status).toBe(201)
      expect(retried.headers.get('idempotent-replayed')).toBeNull()
      const replayed = await create(key)
      expect(replayed.status).toBe(201)
      expect(replayed.headers.get('idempotent-replayed')).toBe('true')
      expect(await replayed.json()).toEqual(await retried.json())
      const [row] =
        await admin`SELECT count(*)::int AS n FROM users WHERE org_id = ${orgId} AND name = ${`Writer ${key}`}`
      expect(row.n).toBe(1)
    }

    // One line when it went, one when it came back; no error line per request or per job run.
    expect(logged(LOST)).toHaveLength(1)
    expect(logged(LOST)[0]).toMatchObject({ level: 'error', error: { name: 'PostgresError' } })
    expect(logged(BACK)).toHaveLength(1)
    expect(logged(BACK)[0]).toMatchObject({ level: 'warn', unavailableMs: expect.any(Number) })
    expect(logged('unexpected error')).toEqual([])
    expect(lines.filter((line) => line.msg === 'request' && line.status === 503).length).toBeGreaterThan(5)

    // The subscription opened before the outage lived through it and got the creates made after.
    // A busy machine may take a few seconds to reconnect the pool: the default deadline, and a
    // stream that ended is told apart from one that is late.
    await until(() => subscription.received.length >= 4 || subscription.ended)
    expect(subscription.ended).toBe(false)
    expect(subscription.received.length).toBeGreaterThanOrEqual(4)
    await subscription.cancel()
  }, 60_000)
})

describeWithPostgres("a store's LISTEN connection after PostgreSQL restarts", () => {
  let postgres: TestPostgres
  let store: Store

  beforeAll(async () => {
    postgres = await startTestPostgres({ own: true })
    store = openPostgresStore(await postgres.database('listen_again'), exampleSchema())
    await store.migrate()
  }, 60_000)
  afterAll(async () => {
    await store?.close()
    await postgres?.stop()
  })

  it("drops the caches of facts once it listens again: other instances' writes meanwhile went unheard", async () => {
    const before = store.changes.others()
    await postgres.stopServer('fast')
    await postgres.startAgain()
    expect(await until(() => store.changes.others() > before)).toBe(true)
  })
})
