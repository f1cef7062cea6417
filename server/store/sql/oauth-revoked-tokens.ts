import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { deleteOlderThan } from './purge.ts'

/** Revokes a client-credentials access token by its jti until it would have expired. */
export async function revokeTokenId(
  x: Executor,
  jti: string,
  orgId: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  const at = isoNow(now)
  await x.run(
    `INSERT INTO oauth_revoked_tokens (jti, org_id, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (jti) DO NOTHING`,
    [jti, orgId, isoNow(expiresAt), at, at],
  )
}

export async function tokenIdRevoked(x: Executor, jti: string): Promise<boolean> {
  return (await x.get('SELECT 1 FROM oauth_revoked_tokens WHERE jti = ?', [jti])) !== null
}

/**
 * Deletes at most `limit` revocations of tokens that have expired anyway (their `exp` refuses them
 * now); returns how many.
 */
export async function purgeExpiredRevocations(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'oauth_revoked_tokens', 'expires_at', now, limit)
}
