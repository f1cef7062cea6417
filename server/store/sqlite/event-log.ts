import { events } from '../../../shared/resources/events.ts'
import { serializeRow } from '../columns.ts'
import type { Entity, EventFilter, NewEvent } from '../types.ts'
import type { Database } from './db.ts'
import { insertRow, type Row } from './records.ts'

/**
 * Reading the event log in append order. The order is SQLite's rowid: `events` is an ordinary
 * rowid table that is only ever appended to, and every append happens under the database's single
 * writer lock, so a larger rowid means a later commit, whichever process wrote it. Timestamps and
 * ids cannot promise that across processes (two processes may stamp the same millisecond, or
 * commit in the other order than they stamped). The rowid never leaves the server: clients resume
 * with an event id, which is looked up here again.
 */

/** Appends an event; call inside the transaction of the change it records. */
export function insertEvent(db: Database, event: NewEvent): void {
  const { id, orgId, now, type, resource, resourceId, data } = event
  insertRow(db, events, { id, orgId, now, values: { type, resource, resourceId, data } })
}

/** Where an event sits in the log, and whose it is; null when no event has this id. */
export function eventPosition(db: Database, id: string): { seq: number; orgId: string } | null {
  const row = db.query('SELECT rowid AS seq, org_id AS orgId FROM events WHERE id = ?').get(id) as {
    seq: number
    orgId: string
  } | null
  return row
}

/** The position of the newest event of any organization (0 for an empty log). */
export function lastEventPosition(db: Database): number {
  const row = db.query('SELECT max(rowid) AS seq FROM events').get() as { seq: number | null }
  return row.seq ?? 0
}

/**
 * The organization's events in the positions `after < seq <= until`, oldest first, at most `limit`.
 * A reader that gets fewer than `limit` has seen everything up to `until`, matching or not, and
 * continues from there: a narrow filter over a busy log does not read the same rows again.
 * NOT INDEXED keeps SQLite on the rowid range (only the rows appended since `after` are visited)
 * instead of walking the organization's whole history through an (org_id, ...) index.
 */
export function eventsAfter(
  db: Database,
  orgId: string,
  range: { after: number; until: number },
  filter: EventFilter,
  limit: number,
): { seq: number; entity: Entity }[] {
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
  const rows = db.query(sql).all(...params) as (Row & { seq: number })[]
  return rows.map((row) => ({ seq: row.seq, entity: serializeRow(events, row) }))
}
