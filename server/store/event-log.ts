import type { Database } from './db.ts'
import type { Row } from './records.ts'

/**
 * Reading the event log in append order. The order is SQLite's rowid: `events` is an ordinary
 * rowid table that is only ever appended to, and every append happens under the database's single
 * writer lock, so a larger rowid means a later commit, whichever process wrote it. Timestamps and
 * ids cannot promise that across processes (two processes may stamp the same millisecond, or
 * commit in the other order than they stamped). The rowid never leaves the server: clients resume
 * with an event id, which is looked up here again.
 */

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
 * The organization's events after position `seq`, oldest first, optionally only of some types.
 * NOT INDEXED keeps SQLite on the rowid range (only the rows appended since `seq` are visited)
 * instead of walking the organization's whole history through an (org_id, ...) index.
 */
export function eventsAfter(
  db: Database,
  orgId: string,
  seq: number,
  types: readonly string[] | undefined,
  limit: number,
): (Row & { seq: number })[] {
  const params: (string | number)[] = [seq, orgId]
  let sql = 'SELECT rowid AS seq, * FROM events NOT INDEXED WHERE rowid > ? AND org_id = ?'
  if (types && types.length > 0) {
    sql += ` AND type IN (${types.map(() => '?').join(', ')})`
    params.push(...types)
  }
  sql += ' ORDER BY rowid LIMIT ?'
  params.push(limit)
  return db.query(sql).all(...params) as (Row & { seq: number })[]
}
