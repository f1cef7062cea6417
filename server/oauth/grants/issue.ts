import { issueAccessToken } from '../../auth/tokens.ts'
import type { Tx } from '../../store/store.ts'
import type { Grant, OAuthClient } from '../../store/types.ts'
import type { OAuthContext } from '../context.ts'
import { NO_STORE } from '../errors.ts'
import { GRANT_ABSOLUTE_TTL_S, REFRESH_IDLE_TTL_S } from '../lifetimes.ts'
import { randomToken } from '../random.ts'

/** RFC 6749 §5.1: the token response, never cached. */
export function tokenResponse(body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...NO_STORE },
  })
}

/** A new refresh token of `grant`: idle expiry from now, never past the grant's absolute expiry. */
export async function newRefreshToken(store: Tx, grant: Grant, now: number): Promise<string> {
  const token = randomToken('rt')
  await store.grants.insertRefreshToken(
    token,
    grant,
    Math.min(now + REFRESH_IDLE_TTL_S * 1000, grant.expiresAt),
    now,
  )
  return token
}

/**
 * Starts a grant (a token family) for what a user allowed a client, with its first refresh token
 * when the client may refresh. Runs inside the caller's transaction.
 */
export async function startGrant(
  ctx: OAuthContext,
  client: OAuthClient,
  user: { id: string; orgId: string },
  scope: string[],
  now: number,
): Promise<{ grant: Grant; refreshToken: string | undefined }> {
  const grant = await ctx.store.grants.create(
    {
      orgId: user.orgId,
      clientId: client.id,
      userId: user.id,
      scope,
      expiresAt: now + GRANT_ABSOLUTE_TTL_S * 1000,
    },
    now,
  )
  const refreshToken = client.grantTypes.includes('refresh_token')
    ? await newRefreshToken(ctx.store, grant, now)
    : undefined
  return { grant, refreshToken }
}

/** Signs the access token of a user grant (with `sid`) and answers with it and the refresh token. */
export async function userTokenResponse(
  ctx: OAuthContext,
  grant: Grant,
  scope: string[],
  refreshToken: string | undefined,
): Promise<Response> {
  const token = await issueAccessToken(ctx.tokens, {
    subject: grant.userId,
    orgId: grant.orgId,
    clientId: grant.clientId,
    scope,
    grantId: grant.id,
  })
  return tokenResponse({
    access_token: token.accessToken,
    token_type: 'Bearer',
    expires_in: token.expiresIn,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope: scope.join(' '),
  })
}
