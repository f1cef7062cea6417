import type { Dialect, SqlParam } from './dialect.ts'

/**
 * Runs SQL for the statements in `server/store/sql/`, which every backend shares: text with `?`
 * placeholders (a backend numbering them itself rewrites them), or text compiled for the
 * executor's dialect. Rows come back as objects keyed by column name.
 */
export interface Executor {
  readonly dialect: Dialect
  all<R = Record<string, unknown>>(text: string, params?: readonly SqlParam[]): Promise<R[]>
  get<R = Record<string, unknown>>(text: string, params?: readonly SqlParam[]): Promise<R | null>
  /** Runs a statement; resolves to how many rows it changed. */
  run(text: string, params?: readonly SqlParam[]): Promise<number>
  /** `fn` as one transaction, or a savepoint inside the open one. */
  transaction<T>(fn: (x: Executor) => Promise<T>): Promise<T>
}
