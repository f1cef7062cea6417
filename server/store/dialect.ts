/**
 * What differs between the SQL the backends speak, for the statements `compile.ts` builds from
 * the internal query: placeholders, the literals of an empty condition, lists of values, LIKE and
 * full-text search (docs/architecture.md, "Store interface and SQL dialects").
 */

/** A value bound to a statement; a list binds as one array parameter where the dialect allows. */
export type SqlValue = string | number | null
export type SqlParam = SqlValue | boolean | readonly SqlValue[]

export interface Dialect {
  readonly name: string
  /** Booleans are a column type of their own (else integers 0 and 1, as request values and cursors carry them). */
  readonly nativeBooleans: boolean
  /** What locks the rows a SELECT reads until the transaction ends (`FOR UPDATE`; none on SQLite). */
  readonly forUpdate: string
  /** A statement that holds `key` (a text) until the transaction ends; null where writes are serial already. */
  readonly lockKey: string | null
  /** A column naming one row of any table, for deletes in batches (`rowid`, `ctid`). */
  readonly rowId: string
  /** The text standing for the `n`-th bound value (1-based). */
  placeholder(n: number): string
  /** A condition that holds for every row, and one that holds for none. */
  readonly always: string
  readonly never: string
  /** `column` is one of `values` (never empty). */
  oneOf(column: string, values: readonly SqlValue[], params: Params): string
  /** `column` matches a LIKE pattern whose escape character is a backslash. */
  like(column: string, pattern: SqlValue | boolean, params: Params): string
  /**
   * The ISO instant (`2026-11-23T00:00:00.000Z`) starting the UTC day, ISO week (from Monday) or
   * month of a timestamp column (ISO 8601 text in UTC); null stays null.
   */
  timeBucket(column: string, bucket: 'day' | 'week' | 'month'): string
  /** Rows of `table` whose searchable fields match the words of `text`; null when no word is left. */
  search(table: string, text: string, params: Params): string | null
}

/** The values a statement binds, in the order their placeholders appear in its text. */
export class Params {
  readonly values: SqlParam[] = []

  constructor(readonly dialect: Dialect) {}

  /** Binds `value`; returns its placeholder, to be written into the text right away. */
  add(value: SqlParam): string {
    this.values.push(value)
    return this.dialect.placeholder(this.values.length)
  }
}

/** Most words of a search that reach the full-text index. */
export const MAX_SEARCH_TERMS = 12

/** The words of free text a search looks for (letters, digits, underscore), at most MAX_SEARCH_TERMS. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, MAX_SEARCH_TERMS) ?? []
}
