import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RedisConnection } from '../../server/http/redis-connection.ts'
import { RedisQuota } from '../../server/http/redis-quota.ts'
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

  it('lets requests through and reports the failure when Redis cannot be reached', async () => {
    const errors: unknown[] = []
    const unreachable = new RedisQuota(
      connect('redis://127.0.0.1:1', (error) => errors.push(error)),
      1,
    )
    expect((await unreachable.take('k')).allowed).toBe(true)
    expect((await unreachable.take('k')).allowed).toBe(true)
    // Past the second between tries it fails again: still one outage, reported once.
    await Bun.sleep(1_100)
    expect((await unreachable.take('k')).allowed).toBe(true)
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
      expect((await q.take('steady')).allowed).toBe(true)
      restarted = await startTestRedis({ own: true, port })
      // A request every 100 ms: the restarted Redis (empty) counts one, then refuses the next.
      let refused = false
      for (const deadline = Date.now() + 4_000; !refused && Date.now() < deadline; ) {
        refused = !(await q.take('steady')).allowed
        await Bun.sleep(100)
      }
      expect(refused).toBe(true)
      // Many requests met the outage; its start and its end were each reported once.
      expect(reported).toEqual(['down', 'back'])
    } finally {
      await own.stop()
      await restarted?.stop()
    }
  })

  it('counts login failures for every replica, in a sliding window, and keeps no e-mail address in Redis', async () => {
    let now = 5_000_000
    const a = new RedisFailureWindow(connect(redis.url), 'login-account', 3, 60_000, () => now)
    const b = new RedisFailureWindow(connect(redis.url), 'login-account', 3, 60_000, () => now)
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
})
