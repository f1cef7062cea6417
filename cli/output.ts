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
const cut = (s: string, width: number) => (s.length > width ? `${s.slice(0, width - 1)}…` : s)

/**
 * Column widths that fit `width` characters (two between columns): the widest column gives up
 * a character at a time, down to a few each. The first column (the id, to copy into the next
 * command) is cut last.
 */
export function fitWidths(natural: number[], width: number | undefined): number[] {
  const widths = [...natural]
  if (!width) return widths
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1)
  while (total() > width) {
    const rest = widths.slice(1)
    const widest = rest.length > 0 && Math.max(...rest) > MIN_CELL ? 1 + rest.indexOf(Math.max(...rest)) : 0
    if (widths[widest]! <= MIN_CELL) break
    widths[widest]!--
  }
  return widths
}

/**
 * A plain text table: one header row, columns padded, long cells cut with an ellipsis, the
 * whole within `width` (the terminal's) when given.
 */
export function renderTable(
  rows: Record<string, unknown>[],
  columns: string[],
  color: boolean,
  width?: number,
): string {
  if (rows.length === 0) return `${color ? kleur.dim('(no records)') : '(no records)'}\n`
  const cells = rows.map((row) => columns.map((c) => cut(cell(valueAt(row, c)), MAX_CELL)))
  const widths = fitWidths(
    columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length))),
    width,
  )
  const line = (values: string[]) =>
    values
      .map((v, i) => cut(v, widths[i]!).padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  const header = line(columns.map((c) => c.toUpperCase()))
  const body = cells.map(line).join('\n')
  return `${color ? kleur.bold(header) : header}\n${body}\n`
}

/** A single record as aligned `field  value` lines, values cut to fit `width` when given. */
export function renderRecord(record: Record<string, unknown>, color: boolean, width?: number): string {
  const keys = Object.keys(record)
  const keyWidth = Math.max(...keys.map((k) => k.length))
  const room = width ? Math.max(MIN_CELL, width - keyWidth - 2) : Number.POSITIVE_INFINITY
  return `${keys.map((k) => `${color ? kleur.cyan(k.padEnd(keyWidth)) : k.padEnd(keyWidth)}  ${cut(cell(record[k]), room)}`).join('\n')}\n`
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
 * list); a list of defaults keeps those the records have (v2's orders have no `currency`).
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
  ) {}

  get written(): number {
    return this.count
  }

  page(records: unknown[]): void {
    if (this.format === 'table') {
      if (records.length > 0 || this.count === 0) {
        const rows = records.map(asRow)
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
