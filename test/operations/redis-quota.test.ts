import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RedisConnection } from '../../server/http/redis-connection.ts'
import { RedisQuota } from '../../server/http/redis-quota.ts'
import { FailureWindow } from '../../server/oauth/rate-limit.ts'
import { RedisFailureWindow } from '../../server/oauth/redis-failures.ts'
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts'

/** The request quota in Redis (`serve --redis`): one count for every replica. */
const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('the request quota in Redis', () => {
  let redis: TestRedis
  const connections: RedisConnection[] = []
  const connect = (url: string, onError?: (error: unknown) => void, onRecovered?: () => void) => {
    const made = new RedisConnection(url, onError, onRecovered)
    connections.push(made)
    return made
  }
  const quota = (limit: number, clock: () => number) => new RedisQuota(connect(redis.url), limit, clock)
  beforeAll(async () => {
    redis = await startTestRedis()
  })
  afterAll(async () => {
    for (const c of connections) c.close()
    await redis?.stop()
  })

  it('is shared by two replicas: the limit holds across them, and both see what is left', async () => {
    const now = () => 1_000_000 * 60_000 + 5_000
    const a = quota(5, now)
    const b = quota(5, now)
    const taken = []
    for (let i = 0; i < 7; i++) taken.push(await (i % 2 ? b : a).take('p org clt usr'))
    expect(taken.map((s) => s.allowed)).toEqual([true, true, true, true, true, false, false])
    expect(taken.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0])
    expect(taken[0]!.resetS).toBe(55)
    expect((await a.peek('p org clt usr')).allowed).toBe(false)
    expect((await b.peek('another key')).remaining).toBe(5)
    expect(a.remainder(taken[1]!)).toBe('"default";r=3;t=55')
    expect(a.policy).toBe('"default";q=5;w=60')
  })

  it('starts a new window on the minute, the same for every replica', async () => {
    let now = 2_000_000 * 60_000 + 59_000
    const q = quota(1, () => now)
    expect((await q.take('k')).allowed).toBe(true)
    expect((await q.take('k')).allowed).toBe(false)
    now += 1_000
    expect((await q.take('k')).allowed).toBe(true)
  })

  it('counts on its own while Redis cannot be reached, and reports the outage once', async () => {
    const errors: unknown[] = []
    const unreachable = new RedisQuota(
      connect('redis://127.0.0.1:1', (error) => errors.push(error)),
      2,
    )
    // The limit still holds, per replica, as without --redis: not lifted by the outage.
    expect((await unreachable.take('k')).allowed).toBe(true)
    expect((await unreachable.take('k')).allowed).toBe(true)
    expect((await unreachable.take('k')).allowed).toBe(false)
    expect((await unreachable.peek('k')).allowed).toBe(false)
    expect((await unreachable.take('another')).allowed).toBe(true)
    // Past the second between tries it fails again: still one outage, reported once.
    await Bun.sleep(1_100)
    expect((await unreachable.take('k')).allowed).toBe(false)
    expect(errors).toHaveLength(1)
  })

  it('counts in Redis again once it is back, while requests keep coming more often than once a second', async () => {
    const own = await startTestRedis({ own: true })
    const port = Number(new URL(own.url).port)
    let restarted: TestRedis | undefined
    try {
      const now = () => 3_000_000 * 60_000
      const reported: string[] = []
      const q = new RedisQuota(
        connect(
          own.url,
          () => reported.push('down'),
          () => reported.push('back'),
        ),
        1,
        now,
      )
      expect((await q.take('steady')).allowed).toBe(true)
      expect((await q.take('steady')).allowed).toBe(false)
      await own.stop()
      // Redis gone: this replica counts alone, from its own empty window.
      expect((await q.take('steady')).allowed).toBe(true)
      restarted = await startTestRedis({ own: true, port })
      const direct = new Bun.RedisClient(restarted.url, { autoReconnect: false })
      // A request every 100 ms: the counter appears in the restarted Redis (empty until then).
      let counted = false
      for (const deadline = Date.now() + 4_000; !counted && Date.now() < deadline; ) {
        await q.take('steady')
        counted = (await direct.send('KEYS', ['api:rate:*:steady'])).length > 0
        await Bun.sleep(100)
      }
      direct.close()
      expect(counted).toBe(true)
      // Many requests met the outage; its start and its end were each reported once.
      expect(reported).toEqual(['down', 'back'])
    } finally {
      await own.stop()
      await restarted?.stop()
    }
  })

  it('counts login failures for every replica, in a sliding window, and keeps no e-mail address in Redis', async () => {
    let now = 5_000_000
    const window = () =>
      new RedisFailureWindow(
        connect(redis.url),
        'login-account',
        3,
        60_000,
        () => now,
        new FailureWindow(3, 60_000, () => now),
      )
    const a = window()
    const b = window()
    const account = 'ann@acme.example'
    await a.fail(account)
    now += 10_000
    await b.fail(account)
    expect(await a.retryAfter(account)).toBe(0)
    await a.fail(account)
    expect(await b.retryAfter(account)).toBe(50)
    now += 50_000
    // The first failure left the window: one more attempt is allowed.
    expect(await b.retryAfter(account)).toBe(0)
    await b.reset(account)
    expect(await a.retryAfter(account)).toBe(0)
    await a.fail(account)
    const client = new Bun.RedisClient(redis.url)
    const keys = (await client.send('KEYS', ['*'])) as string[]
    client.close()
    expect(keys.some((k) => k.startsWith('api:failures:login-account:'))).toBe(true)
    expect(keys.join(' ')).not.toContain('ann@acme')
  })

  it('keeps a failure throttle per replica while Redis cannot be reached: the outage does not lift it', async () => {
    const now = 7_000_000
    const throttle = new RedisFailureWindow(
      connect('redis://127.0.0.1:1'),
      'client-secret',
      3,
      60_000,
      () => now,
      new FailureWindow(3, 60_000, () => now),
    )
    for (let i = 0; i < 3; i++) {
      expect(await throttle.retryAfter('clt_1')).toBe(0)
      await throttle.fail('clt_1')
    }
    expect(await throttle.retryAfter('clt_1')).toBe(60)
    expect(await throttle.retryAfter('clt_2')).toBe(0)
    await throttle.reset('clt_1')
    expect(await throttle.retryAfter('clt_1')).toBe(0)
  })
})
