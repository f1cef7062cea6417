import { identifyClient } from './client-auth.ts'
import type { OAuthContext } from './context.ts'
import { OAuthError } from './errors.ts'
import { readForm } from './form.ts'
import { tokenResponse } from './grants/issue.ts'
import { oauthEndpoint, requirePost } from './token-endpoint.ts'
import { findToken } from './token-lookup.ts'

/**
 * POST /oauth/introspect (RFC 7662). Only confidential clients may ask, and they learn about
 * tokens of their own organization only: any other token, like an invalid, expired or revoked
 * one, is `{"active": false}` and nothing more (RFC 7662 §2.2).
 */
export function introspectionEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  return oauthEndpoint(ctx, async () => {
    requirePost(request)
    const form = await readForm(request)
    const client = await identifyClient(ctx, request, form)
    if (client.public || client.orgId === null)
      throw new OAuthError('invalid_client', 'Introspection needs a confidential client.', 401, {
        'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"',
      })
    const token = form.get('token')
    if (!token) throw new OAuthError('invalid_request', 'token is required.')
    const found = await findToken(ctx, token, form.get('token_type_hint'))
    if (found?.kind === 'access_token' && found.principal.orgId === client.orgId) {
      const { claims, principal } = found
      return tokenResponse({
        active: true,
        scope: [...principal.scopes].join(' '),
        client_id: principal.clientId,
        sub: principal.subject,
        token_type: 'Bearer',
        token_use: 'access_token',
        exp: claims.exp,
        iat: claims.iat,
        iss: claims.iss,
        aud: claims.aud,
        jti: claims.jti,
        org_id: principal.orgId,
      })
    }
    if (found?.kind === 'refresh_token' && found.grant.orgId === client.orgId) {
      const { grant } = found
      return tokenResponse({
        active: true,
        scope: grant.scope.join(' '),
        client_id: grant.clientId,
        sub: grant.userId,
        token_use: 'refresh_token',
        exp: Math.floor(found.expiresAt / 1000),
        iss: ctx.issuer,
        org_id: grant.orgId,
      })
    }
    return tokenResponse({ active: false })
  })
}
