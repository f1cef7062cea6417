import { decodeJwt } from 'jose'
import type { Principal } from '../auth/tokens.ts'
import { isDatabaseUnavailable } from '../store/availability.ts'
import type { Grant } from '../store/types.ts'
import type { OAuthContext } from './context.ts'

type FoundToken =
  | { kind: 'access_token'; principal: Principal; claims: Record<string, unknown> }
  | { kind: 'refresh_token'; grant: Grant; expiresAt: number }

/** A valid access token: signature, issuer, audience, expiry, and not revoked. */
async function accessToken(ctx: OAuthContext, token: string): Promise<FoundToken | null> {
  // A JWT has three dot-separated parts; anything else is not one of our access tokens.
  if (token.split('.').length !== 3) return null
  try {
    const principal = await ctx.verifier.verify(token)
    return { kind: 'access_token', principal, claims: decodeJwt(token) }
  } catch (error) {
    // Not an answer about the token: introspection must not call it inactive meanwhile.
    if (isDatabaseUnavailable(error)) throw error
    return null
  }
}

/** A live refresh token: unused, unexpired, of a live grant. */
async function refreshToken(ctx: OAuthContext, token: string): Promise<FoundToken | null> {
  const record = await ctx.store.grants.findRefreshToken(token)
  if (!record || record.used) return null
  const grant = await ctx.store.grants.find(record.grantId)
  const now = ctx.clock()
  if (!grant || grant.revoked || record.expiresAt <= now || grant.expiresAt <= now) return null
  return { kind: 'refresh_token', grant, expiresAt: record.expiresAt }
}

/**
 * Finds what a presented token is, for introspection and revocation. The `token_type_hint`
 * (RFC 7009 §2.1, RFC 7662 §2.1) only chooses which kind is tried first.
 */
export async function findToken(
  ctx: OAuthContext,
  token: string,
  hint: string | undefined,
): Promise<FoundToken | null> {
  if (hint === 'refresh_token') return (await refreshToken(ctx, token)) ?? (await accessToken(ctx, token))
  return (await accessToken(ctx, token)) ?? (await refreshToken(ctx, token))
}
