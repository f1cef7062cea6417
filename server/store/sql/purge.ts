import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'

/**
 * Deletes at most `limit` rows of `table` whose timestamp `column` is before `before` (epoch ms),
 * in one short statement found through the column's index; returns how many. Every purge of the
 * housekeeping job (server/ops/housekeeping.ts) is one of these. `table` and `column` are the
 * store's own names, never client input.
 */
export async function deleteOlderThan(
  x: Executor,
  table: string,
  column: string,
  before: number,
  limit: number,
): Promise<number> {
  return await x.run(
    `DELETE FROM ${table} WHERE ${x.dialect.rowId} IN (SELECT ${x.dialect.rowId} FROM ${table} WHERE ${column} < ? LIMIT ?)`,
    [isoNow(before), limit],
  )
}
