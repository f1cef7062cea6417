import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { AuthorizationCode } from '../types.ts'
import type { Database } from './db.ts'
import { deleteOlderThan } from './purge.ts'

interface CodeRow {
  org_id: string
  client_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string | null
  scope: string
  expires_at: string
  used_at: string | null
  grant_id: string | null
}

export function insertAuthorizationCode(
  db: Database,
  code: string,
  input: Omit<AuthorizationCode, 'usedAt' | 'grantId'>,
  now: number,
): void {
  const at = isoNow(now)
  db.query(
    `INSERT INTO oauth_authorization_codes
       (hash, org_id, client_id, user_id, redirect_uri, code_challenge, scope, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    hashToken(code),
    input.orgId,
    input.clientId,
    input.userId,
    input.redirectUri,
    input.codeChallenge,
    input.scope.join(' '),
    isoNow(input.expiresAt),
    at,
    at,
  )
}

export function findAuthorizationCode(db: Database, code: string): AuthorizationCode | null {
  const row = db
    .query('SELECT * FROM oauth_authorization_codes WHERE hash = ?')
    .get(hashToken(code)) as CodeRow | null
  if (!row) return null
  return {
    orgId: row.org_id,
    clientId: row.client_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scope: row.scope.split(' ').filter(Boolean),
    expiresAt: Date.parse(row.expires_at),
    usedAt: row.used_at === null ? null : Date.parse(row.used_at),
    grantId: row.grant_id,
  }
}

/** Marks the code used; false when another request redeemed it first (single use, RFC 6749 §4.1.2). */
export function markAuthorizationCodeUsed(db: Database, code: string, now: number): boolean {
  const at = isoNow(now)
  return (
    db
      .query(
        'UPDATE oauth_authorization_codes SET used_at = ?, updated_at = ? WHERE hash = ? AND used_at IS NULL',
      )
      .run(at, at, hashToken(code)).changes === 1
  )
}

export function setAuthorizationCodeGrant(db: Database, code: string, grantId: string, now: number): void {
  db.query('UPDATE oauth_authorization_codes SET grant_id = ?, updated_at = ? WHERE hash = ?').run(
    grantId,
    isoNow(now),
    hashToken(code),
  )
}

/**
 * Deletes at most `limit` codes a day past their expiry; returns how many. Used codes are kept that
 * long so that a late second redemption is still recognised as reuse (and revokes) rather than as
 * an unknown code. Redemption compares the expiry itself, so a code not deleted yet is still refused.
 */
export function purgeExpiredCodes(db: Database, now: number, limit: number): number {
  return deleteOlderThan(db, 'oauth_authorization_codes', 'expires_at', now - 86_400_000, limit)
}
