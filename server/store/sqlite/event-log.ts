import { events } from '../../../shared/resources/events.ts'
import { serializeRow } from '../columns.ts'
import type { Executor } from '../executor.ts'
import type { EventLog } from '../sql/groups.ts'
import { insertRecords } from '../sql/insert-many.ts'
import { insertRow, type Row } from '../sql/records.ts'
import type { Entity, EventFilter, NewEvent } from '../types.ts'

/**
 * Reading the event log in append order. The order is SQLite's rowid: `events` is an ordinary
 * rowid table that is only ever appended to, and every append happens under the database's single
 * writer lock, so a larger rowid means a later commit, whichever process wrote it. Timestamps and
 * ids cannot promise that across processes (two processes may stamp the same millisecond, or
 * commit in the other order than they stamped). The rowid never leaves the server: clients resume
 * with an event id, which is looked up here again.
 */

/** An event as the row of `events`. */
const rowOf = (event: NewEvent) => {
  const { id, orgId, now, type, resource, resourceId, data, actor, requestId } = event
  const values = { type, resource, resourceId, data, actorType: actor?.type, actorId: actor?.id, requestId }
  return { id, orgId, now, values }
}

/** Appends an event; call inside the transaction of the change it records. */
async function append(x: Executor, event: NewEvent): Promise<void> {
  await insertRow(x, events, rowOf(event))
}

/** Appends events in order with multi-row INSERTs. */
async function appendMany(x: Executor, list: readonly NewEvent[]): Promise<void> {
  await insertRecords(x, events, list.map(rowOf), false)
}

/** Where an event sits in the log, and whose it is; null when no event has this id. */
function position(x: Executor, id: string): Promise<{ seq: number; orgId: string } | null> {
  return x.get('SELECT rowid AS seq, org_id AS orgId FROM events WHERE id = ?', [id])
}

/** The position of the newest event of any organization (0 for an empty log). */
async function last(x: Executor): Promise<number> {
  const row = await x.get<{ seq: number | null }>('SELECT max(rowid) AS seq FROM events')
  return row?.seq ?? 0
}

/**
 * The organization's events in the positions `after < seq <= until`, oldest first, at most `limit`.
 * A reader that gets fewer than `limit` has seen everything up to `until`, matching or not, and
 * continues from there: a narrow filter over a busy log does not read the same rows again.
 * NOT INDEXED keeps SQLite on the rowid range (only the rows appended since `after` are visited)
 * instead of walking the organization's whole history through an (org_id, ...) index.
 */
async function after(
  x: Executor,
  orgId: string,
  range: { after: number; until: number },
  filter: EventFilter,
  limit: number,
): Promise<{ seq: number; entity: Entity }[]> {
  if (filter.resources?.length === 0) return []
  const params: (string | number)[] = [range.after, range.until, orgId]
  let sql = 'SELECT rowid AS seq, * FROM events NOT INDEXED WHERE rowid > ? AND rowid <= ? AND org_id = ?'
  for (const [column, values] of [
    ['type', filter.types],
    ['resource', filter.resources],
  ] as const) {
    if (!values || values.length === 0) continue
    sql += ` AND ${column} IN (${values.map(() => '?').join(', ')})`
    params.push(...values)
  }
  sql += ' ORDER BY rowid LIMIT ?'
  params.push(limit)
  const rows = await x.all<Row & { seq: number }>(sql, params)
  return rows.map((row) => ({ seq: row.seq, entity: serializeRow(events, row) }))
}

/** SQLite's event log: positions are rowids, in commit order under the one writer lock. */
export const SQLITE_EVENT_LOG: EventLog = { append, appendMany, position, last, after }
