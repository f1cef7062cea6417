import type { RedisConnection } from '../http/redis-connection.ts'
import { RedisFailureWindow } from './redis-failures.ts'

/** Most keys a window remembers; past it the oldest go first, so memory stays bounded under attack. */
const MAX_KEYS = 50_000

/**
 * A limit on failures per key (an account, an address, a client id). This is all the endpoints
 * see, so that counters shared by replicas can replace the in-memory ones.
 */
export interface FailureThrottle {
  /** Seconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string): number | Promise<number>
  fail(key: string): void | Promise<void>
  reset(key: string): void | Promise<void>
}

/**
 * Counts failures per key (an account, an address) in a sliding window. In memory, so the limits
 * hold per server instance (docs/oauth.md says so).
 */
export class FailureWindow implements FailureThrottle {
  private failures = new Map<string, number[]>()

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: () => number,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string): number {
    const recent = this.recent(key)
    if (recent.length < this.limit) return 0
    return Math.max(1, Math.ceil((recent[recent.length - this.limit]! + this.windowMs - this.clock()) / 1000))
  }

  fail(key: string): void {
    const recent = this.recent(key)
    recent.push(this.clock())
    this.failures.delete(key)
    this.failures.set(key, recent)
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!)
  }

  reset(key: string): void {
    this.failures.delete(key)
  }

  private recent(key: string): number[] {
    const since = this.clock() - this.windowMs
    const times = (this.failures.get(key) ?? []).filter((t) => t > since)
    if (times.length === 0) this.failures.delete(key)
    return times
  }
}

const FIFTEEN_MINUTES = 15 * 60_000

/** The throttles of the authorization server (docs/oauth.md, "Rate limits"). */
export interface OAuthLimits {
  /** Failed logins per account (the e-mail typed): 5 in 15 minutes. */
  loginPerAccount: FailureThrottle
  /** Failed logins per client address: 20 in 15 minutes. */
  loginPerAddress: FailureThrottle
  /** Wrong device user codes per client address: 10 in 15 minutes. */
  userCodePerAddress: FailureThrottle
  /** Failed client-secret authentications per client id (known or not): 10 in 15 minutes. */
  clientSecretPerClient: FailureThrottle
  /** Wrong second factors (TOTP or recovery codes) per user: 5 in 15 minutes. */
  secondFactorPerUser: FailureThrottle
}

/** The throttles, in memory or (`serve --redis`) in Redis, shared by every replica. */
export function oauthLimits(clock: () => number, redis?: RedisConnection): OAuthLimits {
  const window = (name: string, limit: number): FailureThrottle =>
    redis
      ? new RedisFailureWindow(
          redis,
          name,
          limit,
          FIFTEEN_MINUTES,
          clock,
          new FailureWindow(limit, FIFTEEN_MINUTES, clock),
        )
      : new FailureWindow(limit, FIFTEEN_MINUTES, clock)
  return {
    loginPerAccount: window('login-account', 5),
    loginPerAddress: window('login-address', 20),
    userCodePerAddress: window('user-code-address', 10),
    clientSecretPerClient: window('client-secret', 10),
    secondFactorPerUser: window('second-factor-user', 5),
  }
}
