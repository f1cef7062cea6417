import type { Database } from './db.ts'
import { isoNow } from './time.ts'

/** Contract: a key is kept 24 hours per organization and client. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
/** A request still marked in flight after this long is taken to have died with its process. */
export const IN_FLIGHT_TTL_MS = 60 * 1000

export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: string
}

export type Claim =
  | { state: 'new' }
  | { state: 'replay'; response: StoredResponse }
  | { state: 'mismatch' }
  | { state: 'in-flight' }

interface KeyRow {
  request_hash: string
  state: string
  status: number | null
  headers: string | null
  body: string | null
  created_at: string
  updated_at: string
}

export interface KeyId {
  orgId: string
  clientId: string
  key: string
}

/** Looks the key up and, when it is free, marks it in flight (committed, so other instances see it). */
export function claimKey(db: Database, id: KeyId, requestHash: string, now: number): Claim {
  return db
    .transaction((): Claim => {
      const row = db
        .query('SELECT * FROM idempotency_keys WHERE org_id = ? AND client_id = ? AND key = ?')
        .get(id.orgId, id.clientId, id.key) as KeyRow | null
      const expired =
        row !== null &&
        (Date.parse(row.created_at) < now - IDEMPOTENCY_TTL_MS ||
          (row.state === 'pending' && Date.parse(row.updated_at) < now - IN_FLIGHT_TTL_MS))
      if (row && !expired) {
        if (row.request_hash !== requestHash) return { state: 'mismatch' }
        if (row.state === 'pending') return { state: 'in-flight' }
        return {
          state: 'replay',
          response: { status: row.status!, headers: JSON.parse(row.headers!), body: row.body! },
        }
      }
      const at = isoNow(now)
      db.query(
        `INSERT INTO idempotency_keys (org_id, client_id, key, request_hash, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', ?, ?)
         ON CONFLICT (org_id, client_id, key) DO UPDATE SET request_hash = excluded.request_hash,
           state = 'pending', status = NULL, headers = NULL, body = NULL,
           created_at = excluded.created_at, updated_at = excluded.updated_at`,
      ).run(id.orgId, id.clientId, id.key, requestHash, at, at)
      return { state: 'new' }
    })
    .immediate()
}

export function completeKey(db: Database, id: KeyId, response: StoredResponse, now: number): void {
  db.query(
    `UPDATE idempotency_keys SET state = 'done', status = ?, headers = ?, body = ?, updated_at = ?
     WHERE org_id = ? AND client_id = ? AND key = ?`,
  ).run(
    response.status,
    JSON.stringify(response.headers),
    response.body,
    isoNow(now),
    id.orgId,
    id.clientId,
    id.key,
  )
}

/** Frees a key whose request failed, so that the client may retry with a corrected body. */
export function releaseKey(db: Database, id: KeyId): void {
  db.query(
    "DELETE FROM idempotency_keys WHERE org_id = ? AND client_id = ? AND key = ? AND state = 'pending'",
  ).run(id.orgId, id.clientId, id.key)
}

/** Drops keys past their lifetime. */
export function purgeKeys(db: Database, now: number): void {
  db.query('DELETE FROM idempotency_keys WHERE created_at < ?').run(isoNow(now - IDEMPOTENCY_TTL_MS))
}
