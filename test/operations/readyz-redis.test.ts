import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type App, createApp } from '../../server/app.ts'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts'

/**
 * With `--redis`, `/readyz` is 503 while Redis cannot be reached (the contract's readiness), and
 * 200 again once it answers; `/healthz` stays 200 throughout, and so do requests, which count
 * their limits in memory meanwhile: an outage of Redis is never a 5xx. A Redis of the test's own,
 * stopped and started again on the same port.
 */
const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('/readyz with --redis', () => {
  let redis: TestRedis
  let app: App
  let port: number
  let basic: string
  const unexpected: unknown[] = []
  const probe = async (path = '/readyz') => {
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`))
    return { status: response.status, body: (await response.json()) as { status: string; reason?: string } }
  }

  beforeAll(async () => {
    redis = await startTestRedis({ own: true })
    port = Number(new URL(redis.url).port)
    const db = openDatabase(':memory:')
    await migrateDatabase(db, exampleSchema())
    const store = sqliteStore(db, exampleSchema())
    const org = await store.orgs.create('Acme')
    const { client, secret } = await store.clients.create({ name: 'svc', orgId: org.id, public: false })
    basic = btoa(`${client.id}:${secret}`)
    app = await createApp({
      schema: exampleSchema(),
      store,
      baseUrl: 'http://127.0.0.1',
      redis: redis.url,
      // A 500's cause would come here.
      log: (error) => unexpected.push(error),
    })
  })
  afterAll(async () => {
    app?.close()
    await redis?.stop()
  })

  it('is ready while Redis answers, 503 while it does not (requests still served, not 5xx), and ready again once it is back', async () => {
    expect(await probe()).toEqual({ status: 200, body: { status: 'ok' } })

    await redis.stop()
    expect(await probe()).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'Redis does not answer' },
    })
    expect((await probe('/healthz')).status).toBe(200)
    // The token endpoint (its client-secret throttle) and the API (the request quota) still answer.
    const issued = await app.fetch(
      new Request('http://127.0.0.1/oauth/token', {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}` },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      }),
    )
    expect(issued.status).toBe(200)
    const { access_token } = (await issued.json()) as { access_token: string }
    const read = await app.fetch(
      new Request('http://127.0.0.1/api/v2/users', { headers: { Authorization: `Bearer ${access_token}` } }),
    )
    expect(read.status).toBe(200)
    expect(read.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/)
    expect(unexpected).toEqual([])

    redis = await startTestRedis({ own: true, port })
    // The connection is made again at most once a second.
    const deadline = Date.now() + 5_000
    let ready = await probe()
    while (ready.status !== 200 && Date.now() < deadline) {
      await Bun.sleep(100)
      ready = await probe()
    }
    expect(ready).toEqual({ status: 200, body: { status: 'ok' } })
  })
})
