import { RedisClient } from 'bun'

/** Longest wait for Redis before the caller goes on without it. */
const REDIS_TIMEOUT_MS = 500

/**
 * One connection to the Redis that replicas share counters in (`serve --redis`). Made on first
 * use and again after a failure, at most once a second; the client's own reconnecting is off, so
 * that a Redis that is down fails fast instead of queueing commands. Every command gives up after
 * REDIS_TIMEOUT_MS: callers then go on without the shared count. An outage is reported once, when
 * it starts (`onError`), and its end once (`onRecovered`): not once per request while it lasts.
 */
export class RedisConnection {
  private redis: RedisClient | null = null
  private retryAt = 0
  private down = false

  constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void = () => {},
    private readonly onRecovered: () => void = () => {},
  ) {}

  /** Runs `command`; undefined when Redis did not answer in time (the outage reported once). */
  run<T>(command: (redis: RedisClient) => Promise<T>): Promise<T | undefined> {
    return this.attempt(command, true)
  }

  /** Whether Redis answers in time (`/readyz`); a failure is not logged, readiness reports it. */
  async reachable(): Promise<boolean> {
    return (await this.attempt((redis) => redis.send('PING', []), false)) !== undefined
  }

  close(): void {
    this.redis?.close()
    this.redis = null
  }

  private async attempt<T>(
    command: (redis: RedisClient) => Promise<T>,
    report: boolean,
  ): Promise<T | undefined> {
    // Within a second of a failure no new connection is tried. The refusal does not push the next
    // try further: under steady traffic that would never come, and Redis back would stay unused.
    if (!this.redis && Date.now() < this.retryAt) return undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)),
          REDIS_TIMEOUT_MS,
        )
      })
      const answer = await Promise.race([command(this.client()), timeout])
      if (this.down) {
        this.down = false
        this.onRecovered()
      }
      return answer
    } catch (error) {
      this.redis?.close()
      this.redis = null
      this.retryAt = Date.now() + 1_000
      if (report && !this.down) {
        this.down = true
        this.onError(error)
      }
      return undefined
    } finally {
      clearTimeout(timer)
    }
  }

  private client(): RedisClient {
    this.redis ??= new RedisClient(this.url, { connectionTimeout: 2_000, autoReconnect: false })
    return this.redis
  }
}
