import { isoNow } from '../../../shared/time.ts'
import type { Database } from './db.ts'
import { deleteOlderThan } from './purge.ts'

/** Revokes a client-credentials access token by its jti until it would have expired. */
export function revokeTokenId(
  db: Database,
  jti: string,
  orgId: string,
  expiresAt: number,
  now: number,
): void {
  const at = isoNow(now)
  db.query(
    `INSERT INTO oauth_revoked_tokens (jti, org_id, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (jti) DO NOTHING`,
  ).run(jti, orgId, isoNow(expiresAt), at, at)
}

export function tokenIdRevoked(db: Database, jti: string): boolean {
  return db.query('SELECT 1 FROM oauth_revoked_tokens WHERE jti = ?').get(jti) !== null
}

/**
 * Deletes at most `limit` revocations of tokens that have expired anyway (their `exp` refuses them
 * now); returns how many.
 */
export function purgeExpiredRevocations(db: Database, now: number, limit: number): number {
  return deleteOlderThan(db, 'oauth_revoked_tokens', 'expires_at', now, limit)
}
