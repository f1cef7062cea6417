import { RedisClient } from 'bun'

/** Longest wait for Redis before the caller goes on without it. */
const REDIS_TIMEOUT_MS = 500

/**
 * One connection to the Redis that replicas share counters in (`serve --redis`). Made on first
 * use and again after a failure, at most once a second; the client's own reconnecting is off, so
 * that a Redis that is down fails fast instead of queueing commands. Every command gives up after
 * REDIS_TIMEOUT_MS: callers then go on without the shared count (and the failure is logged).
 */
export class RedisConnection {
  private redis: RedisClient | null = null
  private retryAt = 0

  constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Runs `command`; undefined when Redis did not answer in time (already reported). */
  async run<T>(command: (redis: RedisClient) => Promise<T>): Promise<T | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)),
          REDIS_TIMEOUT_MS,
        )
      })
      return await Promise.race([command(this.client()), timeout])
    } catch (error) {
      this.redis?.close()
      this.redis = null
      this.retryAt = Date.now() + 1_000
      this.onError(error)
      return undefined
    } finally {
      clearTimeout(timer)
    }
  }

  close(): void {
    this.redis?.close()
    this.redis = null
  }

  private client(): RedisClient {
    if (this.redis) return this.redis
    if (Date.now() < this.retryAt) throw new Error('Redis is unreachable; retrying shortly')
    this.redis = new RedisClient(this.url, { connectionTimeout: 2_000, autoReconnect: false })
    return this.redis
  }
}
