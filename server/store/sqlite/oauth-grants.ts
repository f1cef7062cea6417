import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { Grant, RefreshTokenRecord } from '../types.ts'
import type { Database } from './db.ts'
import { deleteOlderThan } from './purge.ts'

interface GrantRow {
  id: string
  org_id: string
  client_id: string
  user_id: string
  scope: string
  expires_at: string
  revoked_at: string | null
}

const fromRow = (row: GrantRow): Grant => ({
  id: row.id,
  orgId: row.org_id,
  clientId: row.client_id,
  userId: row.user_id,
  scope: row.scope.split(' ').filter(Boolean),
  expiresAt: Date.parse(row.expires_at),
  revoked: row.revoked_at !== null,
})

export function createGrant(
  db: Database,
  input: { orgId: string; clientId: string; userId: string; scope: string[]; expiresAt: number },
  now: number,
): Grant {
  const id = newId('grt')
  const at = isoNow(now)
  db.query(
    `INSERT INTO oauth_grants (id, org_id, client_id, user_id, scope, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, input.orgId, input.clientId, input.userId, input.scope.join(' '), isoNow(input.expiresAt), at, at)
  return { id, ...input, revoked: false }
}

export function findGrant(db: Database, id: string): Grant | null {
  const row = db.query('SELECT * FROM oauth_grants WHERE id = ?').get(id) as GrantRow | null
  return row ? fromRow(row) : null
}

/** True while the grant exists (its user was not deleted) and was not revoked: one primary-key lookup. */
export function grantIsLive(db: Database, id: string): boolean {
  const row = db.query('SELECT revoked_at FROM oauth_grants WHERE id = ?').get(id) as {
    revoked_at: string | null
  } | null
  return row !== null && row.revoked_at === null
}

/** Revokes the grant and with it every refresh token (and, through `sid`, every access token) it issued. */
export function revokeGrant(db: Database, id: string, now: number): void {
  const at = isoNow(now)
  db.query('UPDATE oauth_grants SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL').run(
    at,
    at,
    id,
  )
}

export function insertRefreshToken(
  db: Database,
  token: string,
  grant: { id: string; orgId: string },
  expiresAt: number,
  now: number,
): void {
  const at = isoNow(now)
  db.query(
    `INSERT INTO oauth_refresh_tokens (hash, grant_id, org_id, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(hashToken(token), grant.id, grant.orgId, isoNow(expiresAt), at, at)
}

export function findRefreshToken(db: Database, token: string): RefreshTokenRecord | null {
  const row = db
    .query('SELECT grant_id, expires_at, used_at FROM oauth_refresh_tokens WHERE hash = ?')
    .get(hashToken(token)) as { grant_id: string; expires_at: string; used_at: string | null } | null
  if (!row) return null
  return { grantId: row.grant_id, expiresAt: Date.parse(row.expires_at), used: row.used_at !== null }
}

/**
 * Marks a refresh token used. Returns false when it already was: of two concurrent requests with
 * the same token only one may rotate it, the other is reuse.
 */
export function markRefreshTokenUsed(db: Database, token: string, now: number): boolean {
  const at = isoNow(now)
  const result = db
    .query('UPDATE oauth_refresh_tokens SET used_at = ?, updated_at = ? WHERE hash = ? AND used_at IS NULL')
    .run(at, at, hashToken(token))
  return result.changes === 1
}

/**
 * An access token's lifetime (ACCESS_TOKEN_TTL_S). A family is kept this long after it stops
 * issuing tokens, so that access tokens carrying its `sid` keep working until their own expiry:
 * a deleted grant is not live.
 */
const ACCESS_TOKEN_MS = 3600_000

/**
 * Deletes at most `limit` grants (with their refresh tokens) that can never issue again and whose
 * access tokens have expired; returns how many. That is an access-token lifetime after the grant's
 * absolute expiry, after its revocation, or after its last refresh token's (idle) expiry. Idle
 * families are found through those expired tokens, so this runs before purgeExpiredRefreshTokens.
 */
export function purgeExpiredGrants(db: Database, now: number, limit: number): number {
  return db
    .query(
      `DELETE FROM oauth_grants WHERE id IN (
         SELECT id FROM oauth_grants WHERE expires_at < ?1
         UNION ALL SELECT id FROM oauth_grants WHERE revoked_at < ?1
         UNION ALL SELECT r.grant_id FROM oauth_refresh_tokens r WHERE r.expires_at < ?1
           AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens l WHERE l.grant_id = r.grant_id AND l.expires_at >= ?1)
         LIMIT ?2)`,
    )
    .run(isoNow(now - ACCESS_TOKEN_MS), limit).changes
}

/**
 * Deletes at most `limit` refresh tokens an access-token lifetime past their expiry; returns how
 * many. They are kept that hour so that purgeExpiredGrants sees when a family last issued. The
 * refresh grant compares the expiry itself, so a token not deleted yet is still refused.
 */
export function purgeExpiredRefreshTokens(db: Database, now: number, limit: number): number {
  return deleteOlderThan(db, 'oauth_refresh_tokens', 'expires_at', now - ACCESS_TOKEN_MS, limit)
}
