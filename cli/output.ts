import kleur from 'kleur'
import type { Io } from './io.ts'
import { formatMoney } from './money.ts'

export type Format = 'json' | 'ndjson' | 'table'
export const FORMATS: readonly Format[] = ['json', 'ndjson', 'table']

/** `--format`, or a table on a terminal and JSON when piped. */
export function chooseFormat(io: Io, requested: unknown): Format {
  if (requested === undefined) return io.stdoutIsTTY ? 'table' : 'json'
  if (!FORMATS.includes(requested as Format)) throw new Error(`--format must be one of ${FORMATS.join(', ')}`)
  return requested as Format
}

/** Colours follow NO_COLOR and FORCE_COLOR (https://no-color.org), else whether stdout is a terminal. */
export function colorsEnabled(io: Pick<Io, 'env' | 'stdoutIsTTY'>): boolean {
  if (io.env.NO_COLOR) return false
  if (io.env.FORCE_COLOR && io.env.FORCE_COLOR !== '0') return true
  return io.stdoutIsTTY
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return formatMoney(value) ?? JSON.stringify(value)
  return String(value).replace(/\s+/g, ' ')
}

const MAX_CELL = 40

/** A column's value: `actor.id` is the `id` of the record's `actor` (field names have no dot). */
function valueAt(row: Record<string, unknown>, column: string): unknown {
  const dot = column.indexOf('.')
  if (dot === -1) return row[column]
  const object = row[column.slice(0, dot)]
  return object && typeof object === 'object'
    ? (object as Record<string, unknown>)[column.slice(dot + 1)]
    : null
}

const MIN_CELL = 4
/** Narrower than this, a cut value says too little: the column is left out instead. */
const MIN_KEPT = 10
const cut = (s: string, width: number) => (s.length > width ? `${s.slice(0, width - 1)}…` : s)

/**
 * An identifier column (`id`, `userId`, `actor.id`): its values are copied into the next
 * command, so they are shown whole or not at all, never cut to `bok_01…`.
 */
const isIdColumn = (column: string) => /(^|\.)id$|Id$/.test(column)

/** `userId` as `USER ID`, `nextAttemptAt` as `NEXT ATTEMPT AT`, `actor.type` as `ACTOR.TYPE`. */
export const headerOf = (column: string) => column.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toUpperCase()

/**
 * Which columns a table shows within `width` characters (two between columns), and how wide.
 * Columns come in priority order. The first and the record's `id` are always shown; any other is
 * left out when it cannot fit at its least width: an id column's least width is its whole value,
 * any other's a few characters. Then the widest column above its least gives up a character at a
 * time.
 */
function fitColumns(
  columns: readonly string[],
  natural: readonly number[],
  width: number | undefined,
): { shown: number[]; widths: number[] } {
  const all = natural.map((_, i) => i)
  if (!width) return { shown: all, widths: [...natural] }
  const least = (i: number) => (isIdColumn(columns[i]!) ? natural[i]! : Math.min(natural[i]!, MIN_KEPT))
  const always = (i: number) => i === 0 || columns[i] === 'id'
  let used = all.filter(always).reduce((sum, i) => sum + least(i) + 2, -2)
  const shown = all.filter((i) => {
    if (always(i)) return true
    if (used + 2 + least(i) > width) return false
    used += 2 + least(i)
    return true
  })
  const widths = shown.map((i) => natural[i]!)
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1)
  while (total() > width) {
    let widest = -1
    for (const [k, i] of shown.entries())
      if (widths[k]! > least(i) && (widest === -1 || widths[k]! > widths[widest]!)) widest = k
    // What must be shown is wider than the terminal: shown whole all the same, ids uncut.
    if (widest === -1) break
    widths[widest]!--
  }
  return { shown, widths }
}

/**
 * A plain text table: one header row, columns padded, long cells cut with an ellipsis, the
 * whole within `width` (the terminal's) when given, leaving out the last columns that do not fit.
 */
export function renderTable(
  rows: Record<string, unknown>[],
  columns: string[],
  color: boolean,
  width?: number,
): string {
  if (rows.length === 0) return `${color ? kleur.dim('(no records)') : '(no records)'}\n`
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = cell(valueAt(row, c))
      return isIdColumn(c) ? text : cut(text, MAX_CELL)
    }),
  )
  const headers = columns.map(headerOf)
  const { shown, widths } = fitColumns(
    columns,
    columns.map((_, i) => Math.max(headers[i]!.length, ...cells.map((r) => r[i]!.length))),
    width,
  )
  const line = (values: string[]) =>
    shown
      .map((i, k) => cut(values[i]!, widths[k]!).padEnd(widths[k]!))
      .join('  ')
      .trimEnd()
  const header = line(headers)
  const body = cells.map(line).join('\n')
  return `${color ? kleur.bold(header) : header}\n${body}\n`
}

/** A single record as aligned `field  value` lines, values (but ids) cut to fit `width` when given. */
export function renderRecord(record: Record<string, unknown>, color: boolean, width?: number): string {
  const keys = Object.keys(record)
  const keyWidth = Math.max(...keys.map((k) => k.length))
  const room = width ? Math.max(MIN_CELL, width - keyWidth - 2) : Number.POSITIVE_INFINITY
  const value = (k: string) => (isIdColumn(k) ? cell(record[k]) : cut(cell(record[k]), room))
  return `${keys.map((k) => `${color ? kleur.cyan(k.padEnd(keyWidth)) : k.padEnd(keyWidth)}  ${value(k)}`).join('\n')}\n`
}

/** Writes one JSON value in the chosen format (tables fall back to records). */
export function printValue(io: Io, format: Format, value: unknown): void {
  if (format === 'table' && value && typeof value === 'object' && !Array.isArray(value)) {
    io.stdout(renderRecord(value as Record<string, unknown>, colorsEnabled(io), io.columns))
  } else if (format === 'ndjson' && Array.isArray(value)) {
    for (const item of value) io.stdout(`${JSON.stringify(item)}\n`)
  } else if (format === 'ndjson') {
    io.stdout(`${JSON.stringify(value)}\n`)
  } else {
    io.stdout(`${JSON.stringify(value, null, io.stdoutIsTTY ? 2 : undefined)}\n`)
  }
}

const COUNT = new Intl.NumberFormat('en-US')

/** `20 of 10,008`: how many records were printed of how many match. */
export const shownOfTotal = (shown: number, total: number) =>
  `${COUNT.format(shown)} of ${COUNT.format(total)}`

/**
 * The columns of a table: `'keys'` takes the first record's fields in their order (a SQL column
 * list); a list of defaults keeps those the records have (v2 folds a money field's `currency` into it).
 */
export type Columns = readonly string[] | 'keys'

const asRow = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }

/**
 * Streams records as they arrive, in constant memory: a JSON array written piece by piece, one
 * line per record for NDJSON, or a table per page (the columns chosen from the first record).
 */
export class RecordStream {
  private count = 0
  private chosen: string[] | undefined

  constructor(
    private readonly io: Io,
    private readonly format: Format,
    private readonly columns: Columns,
    /** What a table shows of a record (a group of `api aggregate`: its aggregates as columns). */
    private readonly rowOf: (record: unknown) => Record<string, unknown> = asRow,
  ) {}

  get written(): number {
    return this.count
  }

  page(records: unknown[]): void {
    if (this.format === 'table') {
      if (records.length > 0 || this.count === 0) {
        const rows = records.map(this.rowOf)
        if (rows[0]) this.chosen ??= this.choose(rows[0])
        const text = renderTable(rows, this.chosen ?? [], colorsEnabled(this.io), this.io.columns)
        // Later pages repeat no header.
        this.io.stdout(this.count === 0 ? text : text.slice(text.indexOf('\n') + 1))
      }
    } else {
      for (const record of records) {
        const json = JSON.stringify(record)
        if (this.format === 'ndjson') this.io.stdout(`${json}\n`)
        else this.io.stdout(`${this.count === 0 ? '[' : ','}\n${json}`)
        this.count++
      }
      return
    }
    this.count += records.length
  }

  /** Closes the output; a table ends with the footer when there is one (`20 of 10,008`). */
  end(footer?: string): void {
    if (this.format === 'json') this.io.stdout(this.count === 0 ? '[]\n' : '\n]\n')
    if (this.format === 'table' && footer)
      this.io.stdout(`${colorsEnabled(this.io) ? kleur.dim(footer) : footer}\n`)
  }

  private choose(first: Record<string, unknown>): string[] {
    const keys = Object.keys(first)
    if (this.columns === 'keys') return keys
    // A dotted column (`actor.id`) reads a member of an object the record has.
    const present = this.columns.filter((c) => c.split('.')[0]! in first)
    return present.length > 0 ? present : keys
  }
}
