/** Most keys a window remembers; past it the oldest go first, so memory stays bounded under attack. */
const MAX_KEYS = 50_000

/**
 * Counts failures per key (an account, an address) in a sliding window. In memory, so the limits
 * hold per server instance (docs/oauth.md says so).
 */
export class FailureWindow {
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

/** The limits of the login and device pages (docs/oauth.md, "Rate limits"). */
export interface PageLimits {
  /** Failed logins per account (the e-mail typed): 5 in 15 minutes. */
  loginPerAccount: FailureWindow
  /** Failed logins per client address: 20 in 15 minutes. */
  loginPerAddress: FailureWindow
  /** Wrong device user codes per client address: 10 in 15 minutes. */
  userCodePerAddress: FailureWindow
}

export function pageLimits(clock: () => number): PageLimits {
  return {
    loginPerAccount: new FailureWindow(5, FIFTEEN_MINUTES, clock),
    loginPerAddress: new FailureWindow(20, FIFTEEN_MINUTES, clock),
    userCodePerAddress: new FailureWindow(10, FIFTEEN_MINUTES, clock),
  }
}
