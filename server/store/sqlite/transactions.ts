import { Availability } from '../availability.ts'
import type { SqlValue } from '../dialect.ts'
import type { Executor } from '../executor.ts'
import type { Database } from './db.ts'
import { SQLITE } from './dialect.ts'

/**
 * The executors over bun:sqlite's synchronous statements, and SQLite's one-writer transactions.
 *
 * A transaction is `BEGIN IMMEDIATE` ... `COMMIT` around an async callback. SQLite has one
 * connection here, so while a transaction is open every other statement waits for it: otherwise a
 * request served between two of the transaction's awaits would read its uncommitted rows, or write
 * into it. The transaction's own statements (through the executor it was given) run at once. Its
 * awaits settle within the same turn of the event loop (the statements are synchronous), so others
 * wait microseconds; a transaction must never await real I/O (a password hash, a fetch).
 *
 * A write that waited the whole busy timeout for another process's write lock (an admin command,
 * a `sqlite3` shell holding a transaction) fails with the 503 of `databaseUnavailable`: nothing
 * was written and a retry may succeed. `availability` hears of it, and of the next write that
 * gets the lock, once each.
 */
export function sqliteExecutors(
  db: Database,
  availability = new Availability(isBusy),
): { root: Executor; inside: Executor } {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  /** Runs a statement; a write that runs tells `availability` that the database answers writes. */
  const checked = <T>(statement: () => T, write = false): T => {
    const watch = availability.watch()
    let result: T
    try {
      result = statement()
    } catch (error) {
      throw availability.failed(error, watch)
    }
    if (write) availability.answered(watch)
    return result
  }
  /** Settles when the open transaction ends; null when none is open. */
  let open: Promise<void> | null = null
  /** Savepoints open inside the transaction; each is named by its depth, so its statements are prepared once. */
  let depth = 0
  const values = (params: readonly unknown[] | undefined) => (params ?? []) as SqlValue[]

  const inside: Executor = {
    dialect: SQLITE,
    all: async <R>(text: string, params?: readonly unknown[]) =>
      checked(() => db.query(text).all(...values(params)) as R[]),
    get: async <R>(text: string, params?: readonly unknown[]) =>
      checked(() => db.query(text).get(...values(params)) as R | null),
    run: async (text, params) => checked(() => db.query(text).run(...values(params)).changes, true),
    /** A transaction inside the open one: a savepoint, undone alone when `fn` throws. */
    async transaction(fn) {
      const name = `nested_${++depth}`
      db.query(`SAVEPOINT ${name}`).run()
      try {
        const result = await fn(inside)
        db.query(`RELEASE ${name}`).run()
        return result
      } catch (error) {
        db.query(`ROLLBACK TO ${name}`).run()
        db.query(`RELEASE ${name}`).run()
        throw error
      } finally {
        depth -= 1
      }
    },
  }

  const root: Executor = {
    dialect: SQLITE,
    async all(text, params) {
      while (open !== null) await open
      return inside.all(text, params)
    },
    async get(text, params) {
      while (open !== null) await open
      return inside.get(text, params)
    },
    async run(text, params) {
      while (open !== null) await open
      return inside.run(text, params)
    },
    async transaction(fn) {
      while (open !== null) await open
      let end!: () => void
      open = new Promise<void>((resolve) => {
        end = resolve
      })
      try {
        checked(() => begin.run(), true)
        try {
          const result = await fn(inside)
          checked(() => commit.run())
          return result
        } catch (error) {
          if (db.inTransaction) rollback.run()
          throw error
        }
      } finally {
        open = null
        end()
      }
    },
  }
  return { root, inside }
}

/** SQLite's answer when another connection held the write lock for longer than the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}
