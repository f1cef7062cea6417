import type { ChangeSource } from './store.ts'

/** How often other connections' commits are looked for (on SQLite `PRAGMA data_version` reads the WAL index). */
export const OTHERS_POLL_MS = 250

/**
 * A map of facts read from the database and cached in memory (revoked tokens, last changes),
 * emptied when the database may have changed: at once when this connection wrote (nearly free to
 * check), and within OTHERS_POLL_MS when another connection committed (another instance, an admin
 * command).
 */
export class StampedCache<V> {
  private own = -1
  private others = -1
  private othersCheckedAt = Number.NEGATIVE_INFINITY
  private readonly values = new Map<string, V>()

  constructor(
    private readonly changes: ChangeSource,
    private readonly clock: () => number = Date.now,
    private readonly limit = 10_000,
  ) {}

  private fresh(): boolean {
    let fresh = true
    const own = this.changes.own()
    if (own !== this.own) {
      this.own = own
      fresh = false
    }
    const now = this.clock()
    if (now - this.othersCheckedAt >= OTHERS_POLL_MS) {
      this.othersCheckedAt = now
      const others = this.changes.others()
      if (others !== this.others) {
        this.others = others
        fresh = false
      }
    }
    return fresh
  }

  /** The cached value of `key` (synchronously), or what `read` answers (then cached). */
  getOrRead(key: string, read: () => Promise<V>): V | Promise<V> {
    if (!this.fresh()) this.values.clear()
    if (this.values.has(key)) return this.values.get(key)!
    return read().then((value) => {
      this.keep(key, value)
      return value
    })
  }

  private keep(key: string, value: V): void {
    if (this.values.size >= this.limit) this.values.clear()
    this.values.set(key, value)
  }

  get(key: string, read: () => V): V {
    if (!this.fresh()) this.values.clear()
    if (this.values.has(key)) return this.values.get(key)!
    const value = read()
    this.keep(key, value)
    return value
  }
}
