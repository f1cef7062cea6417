import type { Condition, SortKey } from '../../../shared/query/types.ts'
import { RESOURCES, type Resource } from '../../../shared/resources/index.ts'
import { columnOf, fromColumn, layoutOf, serializeRow, toColumn } from '../columns.ts'
import { afterKeys, orderBy, whereClause } from '../compile.ts'
import { Params, type SqlValue } from '../dialect.ts'
import type { Entity, NewRecord, PageRequest, StoredRecord } from '../types.ts'
import type { Database } from './db.ts'
import { SQLITE } from './dialect.ts'

export type Row = Record<string, unknown>

const stored = (resource: Resource, row: Row): StoredRecord => ({
  orgId: row.org_id as string,
  entity: serializeRow(resource, row),
})

/**
 * The values of `entity` for sort keys as the store holds them: what `after` takes and cursors
 * carry (a boolean is 0 or 1, as in SQL).
 */
export function sortValuesOf(resource: Resource, entity: Entity, keys: readonly SortKey[]): SqlValue[] {
  return keys.map(({ field }) => {
    const declared = Object.hasOwn(resource.fields, field) ? resource.fields[field] : undefined
    return declared ? toColumn(declared, entity[field]) : (entity[field] as SqlValue)
  })
}

/** One page of an organization's records; fetches `limit` rows (callers ask one extra to see if more follow). */
export function selectPage(db: Database, resource: Resource, orgId: string, request: PageRequest): Entity[] {
  const params = new Params(SQLITE)
  let where = whereClause(resource, orgId, request.where, request.search, params)
  const order = orderBy(resource, request.sort)
  if (request.after) where += ` AND ${afterKeys(resource, order.keys, request.after, params)}`
  let sql = `SELECT * FROM ${resource.table} WHERE ${where} ORDER BY ${order.text} LIMIT ${params.add(request.limit)}`
  if (request.offset) sql += ` OFFSET ${params.add(request.offset)}`
  return (db.query(sql).all(...(params.values as SqlValue[])) as Row[]).map((row) =>
    serializeRow(resource, row),
  )
}

export function countRows(
  db: Database,
  resource: Resource,
  orgId: string,
  where: Condition[],
  search?: string,
): number {
  const params = new Params(SQLITE)
  const sql = `SELECT count(*) AS n FROM ${resource.table} WHERE ${whereClause(resource, orgId, where, search, params)}`
  return (db.query(sql).get(...(params.values as SqlValue[])) as { n: number }).n
}

/** A record by id in any organization; callers decide between 403 and 404. */
export function findRecord(db: Database, resource: Resource, id: string): StoredRecord | null {
  const row = db.query(`SELECT * FROM ${resource.table} WHERE id = ?`).get(id) as Row | null
  return row ? stored(resource, row) : null
}

export function existsInOrg(db: Database, resource: Resource, orgId: string, id: string): boolean {
  return db.query(`SELECT 1 FROM ${resource.table} WHERE id = ? AND org_id = ?`).get(id, orgId) !== null
}

/** True when another record of the organization already holds `value` in a unique field. */
export function uniqueTaken(
  db: Database,
  resource: Resource,
  orgId: string,
  field: string,
  value: unknown,
  exceptId?: string,
): boolean {
  const column = columnOf(field)
  return (
    db
      .query(`SELECT 1 FROM ${resource.table} WHERE org_id = ? AND ${column} = ? AND id != ?`)
      .get(orgId, value as SqlValue, exceptId ?? '') !== null
  )
}

/** Inserts a record; returns the stored value of each field, in declaration order. */
export function insertRow(db: Database, resource: Resource, record: NewRecord): SqlValue[] {
  const names = Object.keys(resource.fields)
  const columns = ['id', 'org_id', ...names.map(columnOf), 'created_at', 'updated_at']
  const values: SqlValue[] = names.map((name) => toColumn(resource.fields[name]!, record.values[name]))
  db.query(
    `INSERT INTO ${resource.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  ).run(record.id, record.orgId, ...values, record.now, record.now)
  return values
}

/** Inserts a record; returns it as a read would (without reading it back). */
export function insertRecord(db: Database, resource: Resource, record: NewRecord): Entity {
  const values = insertRow(db, resource, record)
  const row: Row = { id: record.id, created_at: record.now, updated_at: record.now }
  layoutOf(resource).forEach(([, column], i) => {
    row[column] = values[i]
  })
  return serializeRow(resource, row)
}

/**
 * Sets the fields in `values` of the record `before` and its update time; returns the record as
 * a read would answer it afterwards (without reading it back).
 */
export function updateFields(
  db: Database,
  resource: Resource,
  before: Entity,
  values: Record<string, unknown>,
  now: string,
): Entity {
  const names = Object.keys(values)
  const params: SqlValue[] = names.map((n) => toColumn(resource.fields[n]!, values[n]))
  const sets = [...names.map((n) => `${columnOf(n)} = ?`), 'updated_at = ?']
  db.query(`UPDATE ${resource.table} SET ${sets.join(', ')} WHERE id = ?`).run(
    ...params,
    now,
    before.id as string,
  )
  const after: Entity = { id: before.id }
  for (const [name, , field] of layoutOf(resource)) {
    const changed = names.indexOf(name)
    after[name] = changed === -1 ? before[name] : fromColumn(field, params[changed])
  }
  after.createdAt = before.createdAt
  after.updatedAt = now
  return after
}

export function removeRecord(db: Database, resource: Resource, id: string): void {
  db.query(`DELETE FROM ${resource.table} WHERE id = ?`).run(id)
}

/** Children of a record (`line-items` of an order), oldest first. */
export function childRecords(db: Database, child: Resource, parentId: string): StoredRecord[] {
  const column = columnOf(child.parent!.field)
  const rows = db
    .query(`SELECT * FROM ${child.table} WHERE ${column} = ? ORDER BY created_at, id`)
    .all(parentId) as Row[]
  return rows.map((row) => stored(child, row))
}

/** Records of other resources that point at this one through a reference field (not as parent). */
export function referencesTo(
  db: Database,
  target: Resource,
  id: string,
): { collection: string; field: string }[] {
  const found: { collection: string; field: string }[] = []
  for (const resource of RESOURCES) {
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.references !== target.name || resource.parent?.field === name) continue
      const hit = db.query(`SELECT 1 FROM ${resource.table} WHERE ${columnOf(name)} = ? LIMIT 1`).get(id)
      if (hit !== null) found.push({ collection: resource.name, field: name })
    }
  }
  return found
}

/** When the organization last changed any record of a resource, from the event log; null if never. */
export function lastChange(db: Database, orgId: string, resourceName: string): string | null {
  const row = db
    .query('SELECT max(created_at) AS at FROM events WHERE org_id = ? AND resource = ?')
    .get(orgId, resourceName) as { at: string | null }
  return row.at
}
