import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { IDEMPOTENCY_TTL_MS, type KeyId, type StoredAnswer } from '../types.ts'
import { deleteOlderThan } from './purge.ts'

interface KeyRow {
  request_hash: string
  status: number
  headers: string
  body: string
}

/** The committed answer of a live key (younger than 24 hours), or null. */
/** Holds the key until the transaction ends, where the dialect needs it (concurrent transactions). */
export async function lockKey(x: Executor, id: KeyId): Promise<void> {
  if (x.dialect.lockKey === null) return
  await x.get(x.dialect.lockKey, [JSON.stringify([id.orgId, id.clientId, id.subject, id.key])])
}

export async function findAnswer(x: Executor, id: KeyId, now: number): Promise<StoredAnswer | null> {
  const row = (await x.get(
    `SELECT request_hash, status, headers, body FROM idempotency_keys
       WHERE org_id = ? AND client_id = ? AND subject = ? AND key = ? AND created_at >= ?`,
    [id.orgId, id.clientId, id.subject, id.key, isoNow(now - IDEMPOTENCY_TTL_MS)],
  )) as KeyRow | null
  if (row === null) return null
  return {
    requestHash: row.request_hash,
    response: { status: row.status, headers: JSON.parse(row.headers), body: row.body },
  }
}

/**
 * Keeps the answer of a key. Called inside the transaction of the write it answers, so the record
 * and its answer commit together or not at all. A row past its lifetime that housekeeping has not
 * purged yet is replaced.
 */
export async function saveAnswer(x: Executor, id: KeyId, answer: StoredAnswer, now: number): Promise<void> {
  await x.run(
    `INSERT INTO idempotency_keys (org_id, client_id, subject, key, request_hash, status, headers, body, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, client_id, subject, key) DO UPDATE SET request_hash = excluded.request_hash,
       status = excluded.status, headers = excluded.headers, body = excluded.body,
       created_at = excluded.created_at`,
    [
      id.orgId,
      id.clientId,
      id.subject,
      id.key,
      answer.requestHash,
      answer.response.status,
      JSON.stringify(answer.response.headers),
      answer.response.body,
      isoNow(now),
    ],
  )
}

/**
 * Deletes at most `limit` keys (with the answers they keep) past their 24 hours; returns how many.
 * `findAnswer` already ignores them, so deleting them only frees space.
 */
export async function purgeExpiredIdempotencyKeys(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'idempotency_keys', 'created_at', now - IDEMPOTENCY_TTL_MS, limit)
}
