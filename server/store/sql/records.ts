import type { Condition, SortKey } from '../../../shared/query/types.ts'
import type { Resource } from '../../../shared/resources/index.ts'
import { columnOf, fromColumn, layoutOf, selectList, serializeRow, toColumn, toColumnIn } from '../columns.ts'
import { afterKeys, orderBy, whereClause } from '../compile.ts'
import { Params, type SqlValue } from '../dialect.ts'
import type { Executor } from '../executor.ts'
import type { Entity, NewRecord, PageRequest, StateChange, StoredRecord } from '../types.ts'

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
export async function selectPage(
  x: Executor,
  resource: Resource,
  orgId: string,
  request: PageRequest,
): Promise<Entity[]> {
  const params = new Params(x.dialect)
  let where = whereClause(resource, orgId, request.where, request.search, params)
  const order = orderBy(resource, request.sort)
  if (request.after) where += ` AND ${afterKeys(resource, order.keys, request.after, params)}`
  const columns = selectList(
    resource,
    request.columns,
    request.sort.map((key) => key.field),
  )
  let sql = `SELECT ${columns} FROM ${resource.table} WHERE ${where} ORDER BY ${order.text} LIMIT ${params.add(request.limit)}`
  if (request.offset) sql += ` OFFSET ${params.add(request.offset)}`
  return ((await x.all(sql, [...(params.values as SqlValue[])])) as Row[]).map((row) =>
    serializeRow(resource, row),
  )
}

export async function countRows(
  x: Executor,
  resource: Resource,
  orgId: string,
  where: Condition[],
  search?: string,
): Promise<number> {
  const params = new Params(x.dialect)
  const sql = `SELECT count(*) AS n FROM ${resource.table} WHERE ${whereClause(resource, orgId, where, search, params)}`
  return Number(((await x.get(sql, [...(params.values as SqlValue[])])) as { n: number | string }).n)
}

/** A record by id in any organization; callers decide between 403 and 404. */
export async function findRecord(
  x: Executor,
  resource: Resource,
  id: string,
  lock = false,
  columns?: readonly string[],
): Promise<StoredRecord | null> {
  const forUpdate = lock ? x.dialect.forUpdate : ''
  const row = await x.get<Row>(
    `SELECT ${selectList(resource, columns)}, org_id FROM ${resource.table} WHERE id = ?${forUpdate}`,
    [id],
  )
  return row ? stored(resource, row) : null
}

export async function existsInOrg(
  x: Executor,
  resource: Resource,
  orgId: string,
  id: string,
): Promise<boolean> {
  return (await x.get(`SELECT 1 FROM ${resource.table} WHERE id = ? AND org_id = ?`, [id, orgId])) !== null
}

/** True when another record of the organization already holds `value` in a unique field. */
export async function uniqueTaken(
  x: Executor,
  resource: Resource,
  orgId: string,
  field: string,
  value: unknown,
  exceptId?: string,
): Promise<boolean> {
  const column = columnOf(field)
  return (
    (await x.get(`SELECT 1 FROM ${resource.table} WHERE org_id = ? AND ${column} = ? AND id != ?`, [
      orgId,
      value as SqlValue,
      exceptId ?? '',
    ])) !== null
  )
}

/** Inserts a record; returns the stored value of each field, in declaration order. */
export async function insertRow(
  x: Executor,
  resource: Resource,
  record: NewRecord,
): Promise<(SqlValue | boolean)[]> {
  const names = Object.keys(resource.fields)
  const columns = ['id', 'org_id', ...names.map(columnOf), 'created_at', 'updated_at']
  const values = names.map((name) => toColumnIn(x.dialect, resource.fields[name]!, record.values[name]))
  await x.run(
    `INSERT INTO ${resource.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    [record.id, record.orgId, ...values, record.now, record.now],
  )
  return values
}

/** Inserts a record; returns it as a read would (without reading it back). */
export async function insertRecord(x: Executor, resource: Resource, record: NewRecord): Promise<Entity> {
  const values = await insertRow(x, resource, record)
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
export async function updateFields(
  x: Executor,
  resource: Resource,
  before: Entity,
  values: Record<string, unknown>,
  now: string,
): Promise<Entity> {
  const names = Object.keys(values)
  const params = names.map((n) => toColumnIn(x.dialect, resource.fields[n]!, values[n]))
  const sets = [...names.map((n) => `${columnOf(n)} = ?`), 'updated_at = ?']
  await x.run(`UPDATE ${resource.table} SET ${sets.join(', ')} WHERE id = ?`, [
    ...params,
    now,
    before.id as string,
  ])
  return changedEntity(resource, before, names, params, now)
}

/** The record `before` with the columns `params` in the fields `names`, as a read would answer it. */
function changedEntity(
  resource: Resource,
  before: Entity,
  names: string[],
  params: (SqlValue | boolean)[],
  now: string,
): Entity {
  const after: Entity = { id: before.id }
  for (const [name, , field] of layoutOf(resource)) {
    const changed = names.indexOf(name)
    after[name] = changed === -1 ? before[name] : fromColumn(field, params[changed])
  }
  after.createdAt = before.createdAt
  after.updatedAt = now
  return after
}

/**
 * Sets the state field of the record `before` to `change.to` in one statement that also checks the
 * field still holds one of `change.from`; returns the record as a read would answer it afterwards,
 * or null when it held another state and nothing changed.
 */
export async function transitionRecord(
  x: Executor,
  resource: Resource,
  before: Entity,
  change: StateChange,
  now: string,
): Promise<Entity | null> {
  if (change.field === undefined || change.from === undefined)
    throw new Error(`${resource.name}: transition needs a state change`)
  const field = resource.fields[change.field]!
  const column = columnOf(change.field)
  const to = toColumnIn(x.dialect, field, change.to)
  const from = change.from.map((state) => toColumnIn(x.dialect, field, state))
  const changed = await x.run(
    `UPDATE ${resource.table} SET ${column} = ?, updated_at = ? WHERE id = ? AND ${column} IN (${from.map(() => '?').join(', ')})`,
    [to, now, before.id as string, ...from],
  )
  return changed === 0 ? null : changedEntity(resource, before, [change.field], [to], now)
}

export async function removeRecord(x: Executor, resource: Resource, id: string): Promise<void> {
  await x.run(`DELETE FROM ${resource.table} WHERE id = ?`, [id])
}

/** Children of a record (`line-items` of an order), oldest first. */
export async function childRecords(x: Executor, child: Resource, parentId: string): Promise<StoredRecord[]> {
  const column = columnOf(child.parent!.field)
  const rows = (await x.all(
    `SELECT ${selectList(child, undefined)}, org_id FROM ${child.table} WHERE ${column} = ? ORDER BY created_at, id`,
    [parentId],
  )) as Row[]
  return rows.map((row) => stored(child, row))
}

/** Records that point at this one through a reference field (not as parent), but itself and `except`. */
export async function referencesTo(
  x: Executor,
  resources: readonly Resource[],
  target: Resource,
  id: string,
  except: ReadonlySet<string> = new Set(),
): Promise<{ collection: string; field: string }[]> {
  // A record that names itself (a nullable reference to its own collection) goes with itself.
  const excluded = new Set([...except, id])
  const found: { collection: string; field: string }[] = []
  for (const resource of resources) {
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.references !== target.name || resource.parent?.field === name) continue
      // One more row than can be excluded: if every row is excluded, there were no others.
      const rows = (await x.all(`SELECT id FROM ${resource.table} WHERE ${columnOf(name)} = ? LIMIT ?`, [
        id,
        excluded.size + 1,
      ])) as { id: string }[]
      if (rows.some((row) => !excluded.has(row.id))) found.push({ collection: resource.name, field: name })
    }
  }
  return found
}

/** When the organization last changed any record of a resource, from the event log; null if never. */
export async function lastChange(x: Executor, orgId: string, resourceName: string): Promise<string | null> {
  const row = (await x.get('SELECT max(created_at) AS at FROM events WHERE org_id = ? AND resource = ?', [
    orgId,
    resourceName,
  ])) as { at: string | null }
  return row.at
}
