import { isoNow } from '../../../shared/time.ts'
import type { Database } from './db.ts'

/**
 * Deletes at most `limit` rows of `table` whose timestamp `column` is before `before` (epoch ms),
 * in one short statement found through the column's index; returns how many. Every purge of the
 * housekeeping job (server/ops/housekeeping.ts) is one of these. `table` and `column` are the
 * store's own names, never client input.
 */
export function deleteOlderThan(
  db: Database,
  table: string,
  column: string,
  before: number,
  limit: number,
): number {
  return db
    .query(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`)
    .run(isoNow(before), limit).changes
}
