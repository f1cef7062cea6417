import type { Tx } from '../store.ts'
import type { Database } from './db.ts'

/**
 * The async store over bun:sqlite's synchronous statements, and SQLite's one-writer transactions.
 *
 * A transaction is `BEGIN IMMEDIATE` ... `COMMIT` around an async callback. SQLite has one
 * connection here, so while a transaction is open every other store call waits for it: otherwise a
 * request served between two of the transaction's awaits would read its uncommitted rows, or write
 * into it. The transaction's own calls (through the `tx` it was given) run at once. Its awaits
 * settle within the same turn of the event loop (the statements are synchronous), so others wait
 * microseconds; a transaction must never await real I/O (a password hash, a fetch).
 */

/** A method group with its promises taken off: what the synchronous statements return. */
type Sync<G> = {
  [K in keyof G]: G[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => R
    : G[K] extends (...args: infer A) => infer R
      ? (...args: A) => R
      : G[K]
}
type Groups = Omit<Tx, 'transaction'>
export type SyncTx = { [K in keyof Groups]: Sync<Groups[K]> }

/** Runs a synchronous statement when the store may: at once, or after the open transaction. */
export type Guard = <T>(run: () => T) => Promise<T>

/** Methods that answer from memory and stay synchronous in the interface. */
const SYNCHRONOUS = new Set(['sortValues'])

/** The async view of the synchronous groups, each call going through `guard`. */
export function viewOf(sync: SyncTx, guard: Guard): Groups {
  const view: Record<string, Record<string, unknown>> = {}
  for (const [group, methods] of Object.entries(sync)) {
    const wrapped: Record<string, unknown> = {}
    for (const [name, method] of Object.entries(methods as Record<string, (...args: unknown[]) => unknown>)) {
      wrapped[name] = SYNCHRONOUS.has(name) ? method : (...args: unknown[]) => guard(() => method(...args))
    }
    view[group] = wrapped
  }
  // The shape is SyncTx's with each result wrapped in a promise, which is Groups by construction.
  return view as unknown as Groups
}

/** Turns a synchronous call into a promise, a throw into a rejection. */
function settle<T>(run: () => T): Promise<T> {
  try {
    return Promise.resolve(run())
  } catch (error) {
    return Promise.reject(error)
  }
}

export function sqliteTransactions(db: Database) {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  /** Settles when the open transaction ends; null when none is open. */
  let open: Promise<void> | null = null
  let savepoints = 0
  let inTransaction: Tx | undefined

  const guard: Guard = async (run) => {
    while (open !== null) await open
    return run()
  }

  return {
    guard,
    transactions: {
      /** Calls made through the open transaction's `tx`: never held, they are the transaction. */
      inside: settle as Guard,
      bind(tx: Tx) {
        inTransaction = tx
      },
      async begin<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
        while (open !== null) await open
        let end!: () => void
        open = new Promise<void>((resolve) => {
          end = resolve
        })
        try {
          begin.run()
          try {
            const result = await fn(inTransaction!)
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
      /** A transaction inside the open one: a savepoint, undone alone when `fn` throws. */
      async savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
        const name = `nested_${++savepoints}`
        db.run(`SAVEPOINT ${name}`)
        try {
          const result = await fn(inTransaction!)
          db.run(`RELEASE ${name}`)
          return result
        } catch (error) {
          db.run(`ROLLBACK TO ${name}`)
          db.run(`RELEASE ${name}`)
          throw error
        }
      },
    },
  }
}
