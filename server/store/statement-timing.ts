import type { SqlParam } from './dialect.ts'
import type { Executor } from './executor.ts'

/** What a call to the database did: read rows, changed them, or was a whole transaction. */
type StatementKind = 'read' | 'write' | 'transaction'

/**
 * How long the store's calls to the database take, and how many hold a connection now
 * (docs/operations.md, "Metrics"). The metrics attach `observe` once the app is built; until then
 * nothing is recorded. Bun.sql does not report its pool, so the store counts from its side: each
 * open transaction holds a connection, and each statement outside one holds or waits for one.
 */
export class StatementTiming {
  observe: (kind: StatementKind, seconds: number) => void = () => {}
  /** Transactions open and statements running outside one now. */
  busy = 0

  constructor(
    /** `sqlite` or `postgres`. */
    readonly backend: string,
    /** Connections the store may hold at once (its pool's size; 1 for SQLite's one connection). */
    readonly connections: number,
  ) {}
}

/** A statement that only reads starts with SELECT; UPDATE ... RETURNING comes back through `all` too. */
const READS = /^\s*select\b/i

/**
 * `x` with each statement and each transaction timed into `timing`. Statements inside a
 * transaction are timed too, but hold no connection of their own; a savepoint is timed as its
 * statements only, so a transaction is counted once.
 */
export function timedExecutor(x: Executor, timing: StatementTiming, inside = false): Executor {
  const timed = async <T>(kind: StatementKind, call: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    if (!inside) timing.busy++
    try {
      return await call()
    } finally {
      if (!inside) timing.busy--
      timing.observe(kind, (performance.now() - started) / 1000)
    }
  }
  const kindOf = (text: string): StatementKind => (READS.test(text) ? 'read' : 'write')
  return {
    dialect: x.dialect,
    all: <R>(text: string, params?: readonly SqlParam[]) => timed(kindOf(text), () => x.all<R>(text, params)),
    get: <R>(text: string, params?: readonly SqlParam[]) => timed(kindOf(text), () => x.get<R>(text, params)),
    run: (text, params) => timed('write', () => x.run(text, params)),
    transaction: (fn) => {
      const body = () => x.transaction((y) => fn(timedExecutor(y, timing, true)))
      return inside ? body() : timed('transaction', body)
    },
  }
}
