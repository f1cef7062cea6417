import { stringify } from 'csv-stringify/sync'
import { notAcceptable } from '../../shared/errors.ts'
import { negotiate } from './accept.ts'

/** RFC 4180 §3 and RFC 7111: UTF-8, with its header row. */
const CSV_TYPE = 'text/csv; charset=utf-8; header=present'
const NDJSON_TYPE = 'application/x-ndjson'

/** A page's items as a table: the columns in order, and the link to the next page (or null). */
interface TabularPage {
  /** Dotted paths into each item (`amount.value`, `author.name`), in the header's order. */
  columns: readonly string[]
  items: readonly unknown[]
  /** The path of the next page, sent as `Link: <next>; rel="next"`. */
  next: string | null
  /** The number of matches, when the request asked for it (`include_total=true`). */
  total?: number | null
}

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list, with
 * the full-width forms some spreadsheets fold into them), and the apostrophe itself, so that the
 * guard is undone by dropping one leading apostrophe from any text cell that starts with one.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20']/

/** The value at a path (`['amount', 'value']`) of an item; undefined where the path leaves the item. */
function valueAt(item: unknown, path: readonly string[]): unknown {
  let value = item
  for (const name of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[name]
  }
  return value
}

/**
 * One cell: null (and a path the item lacks) is empty, a boolean `true`/`false`, a number as JSON
 * writes it (never guarded: `-5` stays a number), an object or array its JSON text (a `json` or
 * `list` field, an expanded nested page), and text guarded against formulas.
 */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return FORMULA_START.test(value) ? `'${value}` : value
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return JSON.stringify(value)
}

/**
 * The page as RFC 4180 CSV: a header row of the columns, then one row per item, CRLF after each;
 * a cell is quoted when it holds a comma, a quote (doubled), a CR or an LF.
 */
export function csvText(columns: readonly string[], items: readonly unknown[]): string {
  const paths = columns.map((column) => column.split('.'))
  const rows: string[][] = [[...columns]]
  for (const item of items) rows.push(paths.map((path) => csvCell(valueAt(item, path))))
  // csv-stringify quotes a lone CR or LF only when asked: a reader would take it for a row's end.
  return stringify(rows, { record_delimiter: 'windows', quoted_match: [/[\r\n]/] })
}

/** The page as NDJSON: each item's JSON on a line of its own, `\n` after each. */
function ndjsonText(items: readonly unknown[]): string {
  let text = ''
  for (const item of items) text += `${JSON.stringify(item)}\n`
  return text
}

/**
 * A page as CSV or NDJSON with the headers that stand for the JSON envelope's `pagination`:
 * `Link` to the next page and, when counted, `X-Total-Count`. Lists and aggregates answer with it.
 */
export function tabularAnswer(
  format: 'csv' | 'ndjson',
  page: TabularPage,
): { text: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'Content-Type': format === 'csv' ? CSV_TYPE : NDJSON_TYPE }
  if (page.next !== null) headers.Link = `<${page.next}>; rel="next"`
  if (typeof page.total === 'number') headers['X-Total-Count'] = String(page.total)
  const text = format === 'csv' ? csvText(page.columns, page.items) : ndjsonText(page.items)
  return { text, headers }
}

/** How a list answers: JSON (the default), CSV or NDJSON. */
export type ListFormat = 'json' | 'csv' | 'ndjson'

const MEDIA_TYPES: Record<ListFormat, string> = {
  json: 'application/json',
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
}
const FORMAT_OF = new Map(Object.entries(MEDIA_TYPES).map(([format, type]) => [type, format as ListFormat]))

/** The format `accept` (the Accept header) picks of `formats` (JSON first); null when none (406). */
export function listFormatOf(
  accept: string | null,
  formats: readonly ListFormat[] = ['json', 'csv', 'ndjson'],
): ListFormat | null {
  // What nearly every client sends, answered without parsing.
  if (accept === null || accept === '*/*' || accept === 'application/json') return 'json'
  const type = negotiate(
    accept,
    formats.map((f) => MEDIA_TYPES[f]),
  )
  return type === null ? null : FORMAT_OF.get(type)!
}

/** listFormatOf for a request, or 406 naming the media types this list answers in. */
export function requireListFormat(
  request: Request,
  formats: readonly ListFormat[] = ['json', 'csv', 'ndjson'],
): ListFormat {
  const format = listFormatOf(request.headers.get('accept'), formats)
  if (format !== null) return format
  const types = formats.map((f) => MEDIA_TYPES[f])
  throw notAcceptable(`This list answers as ${types.join(', ')}.`, [
    { field: 'Accept', message: `must accept one of ${types.join(', ')}` },
  ])
}
