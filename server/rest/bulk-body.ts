import { parse } from 'csv-parse/sync'
import { ApiError, badRequest, type ErrorDetail, invalid, payloadTooLarge } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { checkJsonText } from '../http/json-text.ts'
import { MAX_BULK_RECORDS, rowField } from '../resources/bulk-create.ts'
import type { ApiVersion } from '../versions/versions.ts'
import { ABSENT, cellValue, columnsOf, headerColumns } from './csv-columns.ts'

/** The media types a collection's POST takes for many records at once. */
export const BULK_TYPES = ['text/csv', 'application/x-ndjson'] as const
export type BulkType = (typeof BULK_TYPES)[number]

/** The bulk media type of a Content-Type header, or null for another (a JSON body). */
export function bulkTypeOf(contentType: string | null): BulkType | null {
  if (contentType === null) return null
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return BULK_TYPES.find((t) => t === type) ?? null
}

function tooMany(count: number): ApiError {
  return payloadTooLarge(`One request creates at most ${MAX_BULK_RECORDS} records; this one has ${count}.`, [
    { field: 'rows', message: `has ${count} records, more than ${MAX_BULK_RECORDS}` },
  ])
}

function noRows(): ApiError {
  return invalid('The body holds no record.', [{ field: 'rows', message: 'must hold at least one record' }])
}

/** At most this many rows' problems in one answer, as the engine's validation lists them. */
const MAX_DETAILS = 20

/**
 * The records of a `text/csv` body as JSON bodies in the version's shape (RFC 4180; a header row
 * naming the fields, an empty line ignored, a byte order mark allowed). 400 for CSV that does not
 * parse (an unclosed quote, a row with another number of cells than the header) naming the row;
 * 422 for a header naming no writable field, and for a JSON column's cell that is not JSON text.
 */
export function csvBodies(text: string, version: ApiVersion, resource: Resource): unknown[] {
  let records: (string | null)[][]
  // Only a body with `""` in it can hold a quoted empty cell; the others skip the cost of a cast,
  // and every empty cell of theirs is unquoted.
  const quotedEmpty = text.includes('""')
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      // An unquoted empty cell is null: it is told apart from a quoted one (`""`), the empty text.
      ...(quotedEmpty ? { cast: (value, context) => (value === '' && !context.quoting ? null : value) } : {}),
    }) as (string | null)[][]
  } catch (error) {
    const { records: before, message } = error as { records?: number; message?: string }
    const field = before ? `rows[${before - 1}]` : 'header'
    throw badRequest(`The CSV body does not parse (${field}): ${message ?? 'malformed'}.`, {
      details: [{ field, message: message ?? 'malformed CSV' }],
      cause: error,
    })
  }
  const [header, ...rows] = records
  if (!header) throw noRows()
  if (rows.length > MAX_BULK_RECORDS) throw tooMany(rows.length)
  const { columns, problems } = headerColumns(resource, columnsOf(version, resource), header)
  if (problems.length > 0)
    throw invalid('The header row names columns that are not writable fields.', problems)
  if (rows.length === 0) throw noRows()
  const details: ErrorDetail[] = []
  const bodies = rows.map((cells, index) => {
    const body: Record<string, unknown> = {}
    for (const [i, column] of columns.entries()) {
      const cell = cells[i]
      const value = cellValue(column, cell === undefined || (cell === '' && !quotedEmpty) ? null : cell)
      if (value === ABSENT) continue
      if (value instanceof Error) {
        if (details.length < MAX_DETAILS)
          details.push({ field: rowField(index, column.name), message: value.message })
        continue
      }
      const [name, member] = column.path
      if (member === undefined) body[name] = value
      else body[name] = { ...(body[name] as object | undefined), [member]: value }
    }
    return body
  })
  if (details.length > 0) throw invalid('Some cells are not valid; nothing was written.', details)
  return bodies
}

/**
 * The records of an `application/x-ndjson` body: one JSON object a line, each exactly a JSON POST
 * body; blank lines are ignored and not counted. 400 naming the row for a line that is not JSON,
 * 422 for one that is JSON but no object.
 */
export function ndjsonBodies(text: string): unknown[] {
  const bodies: unknown[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const index = bodies.length
    if (index === MAX_BULK_RECORDS) throw tooMany(text.split('\n').filter((l) => l.trim() !== '').length)
    let body: unknown
    try {
      checkJsonText(line)
      body = JSON.parse(line)
    } catch (error) {
      const reason =
        error instanceof ApiError ? (error.details[0]?.message ?? error.message) : (error as Error).message
      throw badRequest(`rows[${index}] is not valid JSON: ${reason}`, {
        details: [{ field: `rows[${index}]`, message: `is not valid JSON: ${reason}` }],
        cause: error,
      })
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw invalid(`rows[${index}] is not a JSON object.`, [
        { field: `rows[${index}]`, message: 'must be a JSON object' },
      ])
    bodies.push(body)
  }
  if (bodies.length === 0) throw noRows()
  return bodies
}
