import { RedisClient } from 'bun'
import { RATE_WINDOW_S, type RateState, type RequestQuota } from './rate-limit.ts'

const POLICY = 'default'
/** Longest wait for Redis before a request goes through uncounted. */
const REDIS_TIMEOUT_MS = 500

/** A Redis answer, or a rejection once REDIS_TIMEOUT_MS has passed (Redis down or reconnecting). */
function answered<T>(reply: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)),
      REDIS_TIMEOUT_MS,
    )
  })
  return Promise.race([reply, timeout]).finally(() => clearTimeout(timer))
}

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
 * every replica agrees where one ends without talking to the others. When Redis cannot be reached
 * requests are let through and the failure is logged: an outage of the counters is not an outage
 * of the service.
 */
export class RedisQuota implements RequestQuota {
  readonly policy: string
  private redis: RedisClient | null = null
  /** After a failure, no new connection is tried before this time (ms). */
  private retryAt = 0

  constructor(
    private readonly url: string,
    readonly limit: number,
    private readonly clock: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => {},
    readonly windowS = RATE_WINDOW_S,
  ) {
    this.policy = `"${POLICY}";q=${limit};w=${windowS}`
  }

  /**
   * The connection, made on first use and again after a failure, at most once a second: the
   * client's own reconnecting is off, so that a Redis that is down fails fast instead of queueing.
   */
  private client(): RedisClient {
    if (this.redis) return this.redis
    if (Date.now() < this.retryAt) throw new Error('Redis is unreachable; retrying shortly')
    this.redis = new RedisClient(this.url, { connectionTimeout: 2_000, autoReconnect: false })
    return this.redis
  }

  private failed(error: unknown): void {
    this.redis?.close()
    this.redis = null
    this.retryAt = Date.now() + 1_000
    this.onError(error)
  }

  async take(key: string): Promise<RateState> {
    const { name, start, now } = this.window(key)
    try {
      const count = Number(
        await answered(this.client().send('EVAL', [TAKE, '1', name, String(this.windowS * 1000 + 1000)])),
      )
      return this.state(count, start, now, count <= this.limit)
    } catch (error) {
      this.failed(error)
      return this.state(0, start, now, true)
    }
  }

  async peek(key: string): Promise<RateState> {
    const { name, start, now } = this.window(key)
    try {
      const count = Number((await answered(this.client().get(name))) ?? 0)
      return this.state(count, start, now, count < this.limit)
    } catch (error) {
      this.failed(error)
      return this.state(0, start, now, true)
    }
  }

  remainder(state: RateState): string {
    return `"${POLICY}";r=${state.remaining};t=${state.resetS}`
  }

  close(): void {
    this.redis?.close()
    this.redis = null
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
