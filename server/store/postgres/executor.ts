import type { SQL, TransactionSQL } from 'bun'
import type { Availability } from '../availability.ts'
import type { SqlParam } from '../dialect.ts'
import type { Executor } from '../executor.ts'
import { UniqueTakenError } from '../types.ts'
import { POSTGRES } from './dialect.ts'

const numbered = new Map<string, string>()

/** `unit_price` -> `unitPrice`: the field behind a column. */
const fieldOf = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * PostgreSQL's errors the engine answers: a unique violation of a declared unique field (the
 * migrations name those indexes `<table>_org_<column>_unique`) is a 409, like the check before it;
 * a database that cannot be reached is the 503 `availability` makes of it (and reports once).
 */
function translated(error: unknown, availability: Availability, watch: number): never {
  const { errno, constraint } = (error ?? {}) as { errno?: string; constraint?: string }
  const unique = errno === '23505' ? /^\w+?_org_(\w+)_unique$/.exec(constraint ?? '') : null
  if (unique) throw new UniqueTakenError(fieldOf(unique[1]!))
  const unavailable = availability.failed(error, watch)
  if (unavailable !== error) throw unavailable
  // Bun.sql's errors come from the connection with no frames of ours: give the log the store's
  // calls that led here (the async frames of where this error is rethrown).
  if (error instanceof Error && !/\n\s+at /.test(error.stack ?? '')) {
    const here = new Error().stack?.split('\n').slice(1).join('\n')
    if (here) error.stack = `${error.name}: ${error.message}\n${here}`
  }
  throw error
}

/**
 * The statement text PostgreSQL takes: the shared statements' `?` placeholders numbered `$1`...
 * (text compiled for this dialect is numbered already). Worked out once per text; none of the
 * store's statements has a `?` inside a string literal.
 */
function numberPlaceholders(text: string): string {
  let out = numbered.get(text)
  if (out === undefined) {
    let n = 0
    out = text.includes('$1') ? text : text.replace(/\?/g, () => `$${++n}`)
    numbered.set(text, out)
  }
  return out
}

/**
 * Told after every write that committed (a statement outside a transaction, or a transaction):
 * this instance's caches see its own changes at once, and `announce` tells the other instances.
 */
interface Writes {
  committed(): void
  /** Sent with NOTIFY in the writing transaction, so other instances hear of it when it commits. */
  announce?: { channel: string; payload: string }
}

/**
 * An executor over Bun.sql: the pool at the top, a reserved connection inside a transaction
 * (`sql.begin`), a savepoint inside that. Every statement is prepared once per connection. Every
 * call to the database (a statement, NOTIFY, BEGIN and COMMIT) tells `availability` how it went.
 */
export function postgresExecutor(
  sql: SQL,
  writes: Writes,
  availability: Availability,
  nested = false,
): Executor {
  const watched = <T>(call: () => Promise<T>): Promise<T> => {
    const watch = availability.watch()
    return call().then(
      (value) => {
        availability.answered(watch)
        return value
      },
      (error: unknown) => translated(error, availability, watch),
    )
  }
  const query = (text: string, params: readonly SqlParam[] | undefined) =>
    watched(() => sql.unsafe(numberPlaceholders(text), (params ?? []) as unknown[]))
  return {
    dialect: POSTGRES,
    async all<R>(text: string, params?: readonly SqlParam[]) {
      return [...(await query(text, params))] as R[]
    },
    async get<R>(text: string, params?: readonly SqlParam[]) {
      const rows = await query(text, params)
      return (rows[0] ?? null) as R | null
    },
    async run(text, params) {
      const result = await query(text, params)
      if (!nested) {
        const { announce } = writes
        if (announce) await watched(() => sql.notify(announce.channel, announce.payload))
        writes.committed()
      }
      return result.count ?? 0
    },
    async transaction(fn) {
      if (nested) {
        // Only transaction() below makes a nested executor, on begin's or a savepoint's client.
        const tx = sql as TransactionSQL
        return tx.savepoint((sp) => fn(postgresExecutor(sp, writes, availability, true)))
      }
      // BEGIN and COMMIT are the driver's: a connection lost there is told apart here.
      const result = await watched(() =>
        sql.begin(async (tx) => {
          const value = await fn(postgresExecutor(tx, writes, availability, true))
          if (writes.announce) await tx.notify(writes.announce.channel, writes.announce.payload)
          return value
        }),
      )
      writes.committed()
      return result as Awaited<ReturnType<typeof fn>>
    },
  }
}
