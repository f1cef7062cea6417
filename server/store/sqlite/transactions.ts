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
 */
export function sqliteExecutors(db: Database): { root: Executor; inside: Executor } {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  /** Settles when the open transaction ends; null when none is open. */
  let open: Promise<void> | null = null
  /** Savepoints open inside the transaction; each is named by its depth, so its statements are prepared once. */
  let depth = 0
  const values = (params: readonly unknown[] | undefined) => (params ?? []) as SqlValue[]

  const inside: Executor = {
    dialect: SQLITE,
    all: async <R>(text: string, params?: readonly unknown[]) => db.query(text).all(...values(params)) as R[],
    get: async <R>(text: string, params?: readonly unknown[]) =>
      db.query(text).get(...values(params)) as R | null,
    run: async (text, params) => db.query(text).run(...values(params)).changes,
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
        begin.run()
        try {
          const result = await fn(inside)
          commit.run()
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
