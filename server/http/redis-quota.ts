import { RATE_WINDOW_S, RateLimiter, type RateState, type RequestQuota } from './rate-limit.ts'
import type { RedisConnection } from './redis-connection.ts'

const POLICY = 'default'

/**
 * One INCR per request on the window's counter, which expires with the window: atomic in Redis,
 * so replicas counting the same key never lose a request between them.
 */
const TAKE = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`

/**
 * The request quota shared by every replica (`serve --redis`): the same policy as the in-memory
 * one, counted in Redis. Windows are aligned to the clock (a minute starts on the minute) so that
 * every replica agrees where one ends without talking to the others. When Redis does not answer,
 * each replica counts on its own (in memory, as without `--redis`) until it answers again: an
 * outage of the counters is neither an outage of the service nor a lifting of its limits.
 */
export class RedisQuota implements RequestQuota {
  readonly policy: string
  /** The quota this replica counts alone while Redis does not answer. */
  private readonly local: RateLimiter

  constructor(
    private readonly redis: RedisConnection,
    readonly limit: number,
    private readonly clock: () => number = Date.now,
    readonly windowS = RATE_WINDOW_S,
  ) {
    this.policy = `"${POLICY}";q=${limit};w=${windowS}`
    this.local = new RateLimiter(limit, clock, windowS)
  }

  async take(key: string): Promise<RateState> {
    const { name, start, now } = this.window(key)
    const ttl = String(this.windowS * 1000 + 1000)
    const count = await this.redis.run((r) => r.send('EVAL', [TAKE, '1', name, ttl]))
    if (count === undefined) return this.local.take(key)
    return this.state(Number(count), start, now, Number(count) <= this.limit)
  }

  async peek(key: string): Promise<RateState> {
    const { name, start, now } = this.window(key)
    const count = await this.redis.run((r) => r.get(name))
    if (count === undefined) return this.local.peek(key)
    return this.state(Number(count ?? 0), start, now, Number(count ?? 0) < this.limit)
  }

  remainder(state: RateState): string {
    return `"${POLICY}";r=${state.remaining};t=${state.resetS}`
  }

  private window(key: string) {
    const now = this.clock()
    const length = this.windowS * 1000
    const start = Math.floor(now / length) * length
    return { name: `api:rate:${start}:${key}`, start, now }
  }

  private state(count: number, start: number, now: number, allowed: boolean): RateState {
    const resetS = Math.max(1, Math.ceil((start + this.windowS * 1000 - now) / 1000))
    return { allowed, remaining: Math.max(0, this.limit - count), resetS }
  }
}
