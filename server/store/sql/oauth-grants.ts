import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { Executor } from '../executor.ts'
import type { Grant, RefreshTokenRecord } from '../types.ts'
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

export async function createGrant(
  x: Executor,
  input: { orgId: string; clientId: string; userId: string; scope: string[]; expiresAt: number },
  now: number,
): Promise<Grant> {
  const id = newId('grt')
  const at = isoNow(now)
  await x.run(
    `INSERT INTO oauth_grants (id, org_id, client_id, user_id, scope, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, input.orgId, input.clientId, input.userId, input.scope.join(' '), isoNow(input.expiresAt), at, at],
  )
  return { id, ...input, revoked: false }
}

export async function findGrant(x: Executor, id: string): Promise<Grant | null> {
  const row = (await x.get('SELECT * FROM oauth_grants WHERE id = ?', [id])) as GrantRow | null
  return row ? fromRow(row) : null
}

/** True while the grant exists (its user was not deleted) and was not revoked: one primary-key lookup. */
export async function grantIsLive(x: Executor, id: string): Promise<boolean> {
  const row = (await x.get('SELECT revoked_at FROM oauth_grants WHERE id = ?', [id])) as {
    revoked_at: string | null
  } | null
  return row !== null && row.revoked_at === null
}

/** Revokes the grant and with it every refresh token (and, through `sid`, every access token) it issued. */
export async function revokeGrant(x: Executor, id: string, now: number): Promise<void> {
  const at = isoNow(now)
  await x.run('UPDATE oauth_grants SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL', [
    at,
    at,
    id,
  ])
}

export async function insertRefreshToken(
  x: Executor,
  token: string,
  grant: { id: string; orgId: string },
  expiresAt: number,
  now: number,
): Promise<void> {
  const at = isoNow(now)
  await x.run(
    `INSERT INTO oauth_refresh_tokens (hash, grant_id, org_id, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [hashToken(token), grant.id, grant.orgId, isoNow(expiresAt), at, at],
  )
}

export async function findRefreshToken(x: Executor, token: string): Promise<RefreshTokenRecord | null> {
  const row = (await x.get('SELECT grant_id, expires_at, used_at FROM oauth_refresh_tokens WHERE hash = ?', [
    hashToken(token),
  ])) as { grant_id: string; expires_at: string; used_at: string | null } | null
  if (!row) return null
  return { grantId: row.grant_id, expiresAt: Date.parse(row.expires_at), used: row.used_at !== null }
}

/**
 * Marks a refresh token used. Returns false when it already was: of two concurrent requests with
 * the same token only one may rotate it, the other is reuse.
 */
export async function markRefreshTokenUsed(x: Executor, token: string, now: number): Promise<boolean> {
  const at = isoNow(now)
  const result = await x.run(
    'UPDATE oauth_refresh_tokens SET used_at = ?, updated_at = ? WHERE hash = ? AND used_at IS NULL',
    [at, at, hashToken(token)],
  )
  return result === 1
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
export async function purgeExpiredGrants(x: Executor, now: number, limit: number): Promise<number> {
  const before = isoNow(now - ACCESS_TOKEN_MS)
  return x.run(
    `DELETE FROM oauth_grants WHERE id IN (
       SELECT id FROM oauth_grants WHERE expires_at < ?
       UNION ALL SELECT id FROM oauth_grants WHERE revoked_at < ?
       UNION ALL SELECT r.grant_id FROM oauth_refresh_tokens r WHERE r.expires_at < ?
         AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens l WHERE l.grant_id = r.grant_id AND l.expires_at >= ?)
       LIMIT ?)`,
    [before, before, before, before, limit],
  )
}

/**
 * Deletes at most `limit` refresh tokens an access-token lifetime past their expiry; returns how
 * many. They are kept that hour so that purgeExpiredGrants sees when a family last issued. The
 * refresh grant compares the expiry itself, so a token not deleted yet is still refused.
 */
export async function purgeExpiredRefreshTokens(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'oauth_refresh_tokens', 'expires_at', now - ACCESS_TOKEN_MS, limit)
}
