import { sha256Hex } from '../../shared/crypto.ts'
import type { RedisConnection } from '../http/redis-connection.ts'
import type { FailureThrottle, FailureWindow } from './rate-limit.ts'

/**
 * Failures of the last `window` ms: a sorted set of their times, trimmed on every use and expiring
 * with the window. ARGV: now, window, and (for FAIL) a member unique to this failure.
 */
const FAIL = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`
const RECENT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')`

/**
 * A failure throttle (logins, device user codes, client secrets) counted in Redis, so that a limit
 * holds across every replica: the same sliding window as FailureWindow. Keys (e-mail addresses
 * typed, client addresses) are kept as SHA-256 hashes. Every failure is also counted in `local`,
 * this replica's own window of the same limit: while Redis does not answer, that one decides, so
 * an outage of Redis does not lift the limit (it holds per replica, as without `--redis`).
 */
export class RedisFailureWindow implements FailureThrottle {
  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: () => number,
    private readonly local: FailureWindow,
  ) {}

  async retryAfter(key: string): Promise<number> {
    const now = this.clock()
    const reply = await this.redis.run((r) =>
      r.send('EVAL', [RECENT, '1', this.keyOf(key), String(now), String(this.windowMs)]),
    )
    if (reply === undefined) return this.local.retryAfter(key)
    // [member, score, member, score, ...], oldest first.
    const times = Array.isArray(reply) ? reply.filter((_, i) => i % 2 === 1).map(Number) : []
    if (times.length < this.limit) return 0
    return Math.max(1, Math.ceil((times[times.length - this.limit]! + this.windowMs - now) / 1000))
  }

  async fail(key: string): Promise<void> {
    this.local.fail(key)
    const now = this.clock()
    const member = `${now}:${crypto.randomUUID()}`
    await this.redis.run((r) =>
      r.send('EVAL', [FAIL, '1', this.keyOf(key), String(now), String(this.windowMs), member]),
    )
  }

  async reset(key: string): Promise<void> {
    this.local.reset(key)
    await this.redis.run((r) => r.del(this.keyOf(key)))
  }

  private keyOf(key: string): string {
    return `api:failures:${this.name}:${sha256Hex(key)}`
  }
}
