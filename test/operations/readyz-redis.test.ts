import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type App, createApp } from '../../server/app.ts'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts'

/**
 * With `--redis`, `/readyz` is 503 while Redis cannot be reached (the contract's readiness), and
 * 200 again once it answers; `/healthz` stays 200 throughout. A Redis of the test's own, stopped
 * and started again on the same port.
 */
const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('/readyz with --redis', () => {
  let redis: TestRedis
  let app: App
  let port: number
  const probe = async (path = '/readyz') => {
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`))
    return { status: response.status, body: (await response.json()) as { status: string; reason?: string } }
  }

  beforeAll(async () => {
    redis = await startTestRedis({ own: true })
    port = Number(new URL(redis.url).port)
    const db = openDatabase(':memory:')
    migrateDatabase(db, exampleSchema())
    app = await createApp({
      schema: exampleSchema(),
      store: sqliteStore(db, exampleSchema()),
      baseUrl: 'http://127.0.0.1',
      redis: redis.url,
      // The rate-limit headers' look-up reports each failure; the probes' answers are what count here.
      log: () => {},
    })
  })
  afterAll(async () => {
    app?.close()
    await redis?.stop()
  })

  it('is ready while Redis answers, 503 while it does not, and ready again once it is back', async () => {
    expect(await probe()).toEqual({ status: 200, body: { status: 'ok' } })

    await redis.stop()
    expect(await probe()).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'Redis does not answer' },
    })
    expect((await probe('/healthz')).status).toBe(200)

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
