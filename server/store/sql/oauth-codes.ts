import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { Executor } from '../executor.ts'
import type { AuthorizationCode } from '../types.ts'
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

export async function insertAuthorizationCode(
  x: Executor,
  code: string,
  input: Omit<AuthorizationCode, 'usedAt' | 'grantId'>,
  now: number,
): Promise<void> {
  const at = isoNow(now)
  await x.run(
    `INSERT INTO oauth_authorization_codes
       (hash, org_id, client_id, user_id, redirect_uri, code_challenge, scope, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
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
    ],
  )
}

export async function findAuthorizationCode(x: Executor, code: string): Promise<AuthorizationCode | null> {
  const row = (await x.get('SELECT * FROM oauth_authorization_codes WHERE hash = ?', [
    hashToken(code),
  ])) as CodeRow | null
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
export async function markAuthorizationCodeUsed(x: Executor, code: string, now: number): Promise<boolean> {
  const at = isoNow(now)
  return (
    (await x.run(
      'UPDATE oauth_authorization_codes SET used_at = ?, updated_at = ? WHERE hash = ? AND used_at IS NULL',
      [at, at, hashToken(code)],
    )) === 1
  )
}

export async function setAuthorizationCodeGrant(
  x: Executor,
  code: string,
  grantId: string,
  now: number,
): Promise<void> {
  await x.run('UPDATE oauth_authorization_codes SET grant_id = ?, updated_at = ? WHERE hash = ?', [
    grantId,
    isoNow(now),
    hashToken(code),
  ])
}

/**
 * Deletes at most `limit` codes a day past their expiry; returns how many. Used codes are kept that
 * long so that a late second redemption is still recognised as reuse (and revokes) rather than as
 * an unknown code. Redemption compares the expiry itself, so a code not deleted yet is still refused.
 */
export async function purgeExpiredCodes(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'oauth_authorization_codes', 'expires_at', now - 86_400_000, limit)
}
