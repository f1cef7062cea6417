import { identifyClient } from './client-auth.ts'
import type { OAuthContext } from './context.ts'
import { NO_STORE, OAuthError } from './errors.ts'
import { readForm } from './form.ts'
import { oauthEndpoint, requirePost } from './token-endpoint.ts'
import { findToken } from './token-lookup.ts'

/**
 * POST /oauth/revoke (RFC 7009). A refresh token revokes its whole grant; a user's access token
 * revokes its grant too (RFC 7009 §2.1 allows it, and one family is one authorization); a
 * client-credentials access token is revoked by its jti. Unknown, expired or already revoked
 * tokens answer 200 all the same (§2.2); a token of another client is refused (§2.1).
 */
export function revocationEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  return oauthEndpoint(ctx, async () => {
    requirePost(request)
    const form = await readForm(request)
    const client = await identifyClient(ctx, request, form)
    const token = form.get('token')
    if (!token) throw new OAuthError('invalid_request', 'token is required.')
    const found = await findToken(ctx, token, form.get('token_type_hint'))
    const now = ctx.clock()
    const notYours = () =>
      new OAuthError('invalid_request', 'The token was not issued to this client, which may not revoke it.')
    if (found?.kind === 'refresh_token') {
      if (found.grant.clientId !== client.id) throw notYours()
      await ctx.store.grants.revoke(found.grant.id, now)
    } else if (found?.kind === 'access_token') {
      const { principal } = found
      if (principal.clientId !== client.id) throw notYours()
      if (principal.grantId !== undefined) await ctx.store.grants.revoke(principal.grantId, now)
      else if (principal.tokenId !== undefined)
        await ctx.store.revocations.revoke(
          principal.tokenId,
          principal.orgId,
          principal.expiresAt * 1000,
          now,
        )
    }
    return new Response(null, { status: 200, headers: NO_STORE })
  })
}
