import { type ApiError, rateLimitedError } from '../../shared/errors.ts'
import type { Principal } from '../auth/tokens.ts'

/**
 * Request rate limits per client and user (or per client address where there is no token), as
 * draft-ietf-httpapi-ratelimit-headers-08 describes them: a quota of `limit` requests in a
 * window of `windowS` seconds, announced on every response with `RateLimit-Policy` and the
 * current state with `RateLimit`. Counters live in memory, per server instance, or in Redis
 * (`serve --redis`, server/http/redis-quota.ts), shared by every replica.
 */

/** The product's default: 600 requests a minute (`--rate-limit`, `API_RATE_LIMIT`; 0 turns limits off). */
export const DEFAULT_RATE_LIMIT = 600
export const RATE_WINDOW_S = 60
/** Most keys kept at once; past it expired windows are swept, then the oldest go first. */
const MAX_KEYS = 100_000
const POLICY = 'default'

export interface RateState {
  allowed: boolean
  /** Requests left in the current window. */
  remaining: number
  /** Seconds until the window resets (at least 1). */
  resetS: number
}

interface Window {
  start: number
  count: number
}

/**
 * What the edge and the WebSocket endpoint need of a quota; kept this small so that counters
 * shared by replicas (docs/operations.md) can stand behind it.
 */
export interface RequestQuota {
  /** `RateLimit-Policy`: the quota, the same on every response. */
  readonly policy: string
  /** Counts one request for `key`; `allowed` is false once the quota of its window is spent. */
  take(key: string): RateState | Promise<RateState>
  /** The state of `key` without counting a request. */
  peek(key: string): RateState | Promise<RateState>
  /** `RateLimit`: what is left of the quota in a state. */
  remainder(state: RateState): string
}

/**
 * The quota a token counts against: its organization, client and subject (the user, or the client
 * itself for client credentials), so that minting more tokens buys no more requests.
 */
export function principalKey(principal: Pick<Principal, 'orgId' | 'clientId' | 'subject'>): string {
  return `p ${principal.orgId} ${principal.clientId} ${principal.subject}`
}

/** The quota of a request without a valid token: its peer address. */
export function addressKey(address: string): string {
  return `a ${address}`
}

/** The 429 over the quota (RFC 6585 §4), with `Retry-After` (RFC 9110 §10.2.3). */
export function rateLimited(state: RateState): ApiError {
  return rateLimitedError(`Too many requests; try again in ${state.resetS} s.`, {
    details: [
      {
        field: 'RateLimit',
        message: `the quota of this client and user (or of this address) is spent for ${state.resetS} s`,
      },
    ],
    headers: { 'Retry-After': String(state.resetS) },
  })
}

export class RateLimiter implements RequestQuota {
  private windows = new Map<string, Window>()
  /** `RateLimit-Policy`: the quota, the same on every response. */
  readonly policy: string

  constructor(
    readonly limit: number,
    private readonly clock: () => number = Date.now,
    readonly windowS = RATE_WINDOW_S,
  ) {
    this.policy = `"${POLICY}";q=${limit};w=${windowS}`
  }

  /** Counts one request for `key`; `allowed` is false once the quota of its window is spent. */
  take(key: string): RateState {
    const now = this.clock()
    const window = this.current(key, now)
    if (window.count < this.limit) window.count += 1
    else return this.state(window, now, false)
    return this.state(window, now, true)
  }

  /** The state of `key` without counting a request (health checks). */
  peek(key: string): RateState {
    const now = this.clock()
    const window = this.windows.get(key)
    if (!window || now >= window.start + this.windowS * 1000)
      return { allowed: true, remaining: this.limit, resetS: this.windowS }
    return this.state(window, now, window.count < this.limit)
  }

  /** `RateLimit`: what is left of the quota in a state. */
  remainder(state: RateState): string {
    return `"${POLICY}";r=${state.remaining};t=${state.resetS}`
  }

  private current(key: string, now: number): Window {
    let window = this.windows.get(key)
    if (!window || now >= window.start + this.windowS * 1000) {
      window = { start: now, count: 0 }
      this.windows.delete(key)
      this.windows.set(key, window)
      if (this.windows.size > MAX_KEYS) this.evict(now)
    }
    return window
  }

  private evict(now: number) {
    for (const [key, window] of this.windows)
      if (now >= window.start + this.windowS * 1000) this.windows.delete(key)
    // Map order is insertion order: the oldest windows go first.
    for (const key of this.windows.keys()) {
      if (this.windows.size <= MAX_KEYS) break
      this.windows.delete(key)
    }
  }

  private state(window: Window, now: number, allowed: boolean): RateState {
    const resetS = Math.max(1, Math.ceil((window.start + this.windowS * 1000 - now) / 1000))
    return { allowed, remaining: Math.max(0, this.limit - window.count), resetS }
  }
}
