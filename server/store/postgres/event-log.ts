import { events } from '../../../shared/resources/events.ts'
import { serializeRow } from '../columns.ts'
import type { Executor } from '../executor.ts'
import type { EventLog } from '../sql/groups.ts'
import { insertRecords } from '../sql/insert-many.ts'
import { insertRow, type Row } from '../sql/records.ts'
import type { Entity, EventFilter, NewEvent } from '../types.ts'

/**
 * The event log on PostgreSQL, in commit order across every replica.
 *
 * `events.seq` is an identity column: its value is drawn at INSERT, not at COMMIT. Two writers
 * could draw 7 and 8 and commit 8 first; a reader that saw 8 would move past 7 and never see it.
 * So an append first takes a transaction-scoped advisory lock, held until its transaction ends:
 * positions are drawn in the order the lock is granted, and transactions holding it commit in that
 * order, so a committed position is never followed by an earlier one committing later. The cost:
 * appends (not the rest of a write) are serialized across replicas, from the append to the commit
 * (docs/performance.md, "PostgreSQL").
 */
export const EVENT_ORDER_LOCK = 7_461_001

/** An event as the row of `events`. */
const rowOf = (event: NewEvent) => {
  const { id, orgId, now, type, resource, resourceId, data, actor, requestId } = event
  const values = { type, resource, resourceId, data, actorType: actor?.type, actorId: actor?.id, requestId }
  return { id, orgId, now, values }
}

async function append(x: Executor, event: NewEvent): Promise<void> {
  await x.get('SELECT pg_advisory_xact_lock(?)', [EVENT_ORDER_LOCK])
  await insertRow(x, events, rowOf(event))
}

/** Appends events in order with multi-row INSERTs, under the event-order lock taken once. */
async function appendMany(x: Executor, list: readonly NewEvent[]): Promise<void> {
  if (list.length === 0) return
  await x.get('SELECT pg_advisory_xact_lock(?)', [EVENT_ORDER_LOCK])
  await insertRecords(x, events, list.map(rowOf), false)
}

async function position(x: Executor, id: string): Promise<{ seq: number; orgId: string } | null> {
  const row = await x.get<{ seq: string | number; org_id: string }>(
    'SELECT seq, org_id FROM events WHERE id = ?',
    [id],
  )
  return row ? { seq: Number(row.seq), orgId: row.org_id } : null
}

async function last(x: Executor): Promise<number> {
  const row = await x.get<{ seq: string | number | null }>('SELECT max(seq) AS seq FROM events')
  return Number(row?.seq ?? 0)
}

async function after(
  x: Executor,
  orgId: string,
  range: { after: number; until: number },
  filter: EventFilter,
  limit: number,
): Promise<{ seq: number; entity: Entity }[]> {
  if (filter.resources?.length === 0) return []
  const params: (string | number | readonly string[])[] = [range.after, range.until, orgId]
  let sql = 'SELECT * FROM events WHERE seq > ? AND seq <= ? AND org_id = ?'
  for (const [column, values] of [
    ['type', filter.types],
    ['resource', filter.resources],
  ] as const) {
    if (!values || values.length === 0) continue
    sql += ` AND ${column} = ANY(?)`
    params.push(values)
  }
  sql += ' ORDER BY seq LIMIT ?'
  params.push(limit)
  const rows = await x.all<Row & { seq: string | number }>(sql, params)
  return rows.map((row) => ({ seq: Number(row.seq), entity: serializeRow(events, row) }))
}

export const POSTGRES_EVENT_LOG: EventLog = { append, appendMany, position, last, after }
