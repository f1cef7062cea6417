import type { Resource } from '../../../shared/resources/index.ts'
import { columnOf, fromColumn, layoutOf, serializeRow, toColumnIn } from '../columns.ts'
import type { SqlParam, SqlValue } from '../dialect.ts'
import type { Executor } from '../executor.ts'
import type { Entity, NewRecord } from '../types.ts'
import type { Row } from './records.ts'

/**
 * Statements for writes of many records at once (a CSV or NDJSON create of up to 1,000 records):
 * one multi-row INSERT per few thousand rows instead of one statement per record, and one lookup
 * per unique field for values already taken.
 */

// Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
const MAX_PARAMS = 30_000
// Values per IN list, as the other batched reads (batch.ts) use.
const IN_CHUNK = 500

/**
 * How many rows each statement inserts: powers of two, each at most what the parameter limit allows
 * for `columns` columns, largest first (1,000 rows: 512, 256, 128, 64, 32, 8). Statements are
 * prepared and kept per text, so a table has a handful of texts however many rows requests carry.
 */
function statementSizes(rows: number, columns: number): number[] {
  const most = Math.max(1, Math.floor(MAX_PARAMS / columns))
  let size = 1
  while (size * 2 <= most) size *= 2
  const sizes: number[] = []
  let left = rows
  while (left > 0) {
    while (size > left) size /= 2
    sizes.push(size)
    left -= size
  }
  return sizes
}

/**
 * Inserts `records` of `resource` in input order with as few statements as the parameter limit
 * allows; returns each as a read would (without reading it back), unless `answer` is false (the
 * event log's rows, whose data nobody reads back).
 */
export async function insertRecords(
  x: Executor,
  resource: Resource,
  records: readonly NewRecord[],
  answer = true,
): Promise<Entity[]> {
  const layout = layoutOf(resource)
  const columns = ['id', 'org_id', ...layout.map(([, column]) => column), 'created_at', 'updated_at']
  const one = `(${columns.map(() => '?').join(', ')})`
  const entities: Entity[] = []
  let start = 0
  for (const size of statementSizes(records.length, columns.length)) {
    const part = records.slice(start, start + size)
    start += size
    const params: SqlParam[] = []
    for (const record of part) {
      params.push(record.id, record.orgId)
      const row: Row = { id: record.id, created_at: record.now, updated_at: record.now }
      for (const [name, column, field] of layout) {
        const value = toColumnIn(x.dialect, field, record.values[name])
        params.push(value)
        row[column] = value
      }
      params.push(record.now, record.now)
      if (answer) entities.push(serializeRow(resource, row))
    }
    await x.run(
      `INSERT INTO ${resource.table} (${columns.join(', ')}) VALUES ${part.map(() => one).join(', ')}`,
      params,
    )
  }
  return entities
}

/** Which of `values` (as JSON has them) records of the organization already hold in the unique field `field`. */
export async function takenValues(
  x: Executor,
  resource: Resource,
  orgId: string,
  field: string,
  values: readonly unknown[],
): Promise<Set<unknown>> {
  const column = columnOf(field)
  const declared = resource.fields[field]!
  const bound = values.map((value) => toColumnIn(x.dialect, declared, value))
  const taken = new Set<unknown>()
  for (let start = 0; start < bound.length; start += IN_CHUNK) {
    const part = bound.slice(start, start + IN_CHUNK)
    const rows = await x.all<{ value: SqlValue }>(
      `SELECT ${column} AS value FROM ${resource.table} WHERE org_id = ? AND ${column} IN (${part.map(() => '?').join(', ')})`,
      [orgId, ...part],
    )
    for (const row of rows) taken.add(fromColumn(declared, row.value))
  }
  return taken
}
