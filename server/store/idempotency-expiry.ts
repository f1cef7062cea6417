import type { Database } from './db.ts'
import { IDEMPOTENCY_TTL_MS } from './idempotency.ts'
import { isoNow } from './time.ts'

/**
 * Deletes at most `limit` idempotency keys (with the responses they keep) older than their 24
 * hours; returns how many. A lookup already ignores them, so deleting them only frees space.
 */
export function purgeExpiredIdempotencyKeys(db: Database, now: number, limit: number): number {
  return db
    .query(
      `DELETE FROM idempotency_keys WHERE rowid IN
         (SELECT rowid FROM idempotency_keys WHERE created_at < ? LIMIT ?)`,
    )
    .run(isoNow(now - IDEMPOTENCY_TTL_MS), limit).changes
}
