import { type IssuedToken, issueAccessToken, type TokenSettings } from '../auth/tokens.ts'
import type { Database } from '../store/db.ts'
import { identifyClient } from './client-auth.ts'
import { NO_STORE, OAuthError, oauthErrorResponse } from './errors.ts'
import { readForm } from './form.ts'
import { grantScope } from './scopes.ts'

export interface TokenEndpointDeps {
  db: Database
  tokens: TokenSettings
  log: (error: unknown) => void
}

function tokenResponse(token: IssuedToken, scope: string[], extra: Record<string, unknown> = {}): Response {
  const body = {
    access_token: token.accessToken,
    token_type: 'Bearer',
    expires_in: token.expiresIn,
    scope: scope.join(' '),
    ...extra,
  }
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...NO_STORE },
  })
}

/** POST /oauth/token (RFC 6749 §3.2). */
export async function tokenEndpoint(deps: TokenEndpointDeps, request: Request): Promise<Response> {
  try {
    if (request.method !== 'POST') {
      throw new OAuthError('invalid_request', 'The token endpoint accepts POST only.', 405, { Allow: 'POST' })
    }
    const form = await readForm(request)
    const grantType = form.get('grant_type')
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.')
    const client = identifyClient(deps.db, request, form)
    switch (grantType) {
      case 'client_credentials': {
        // RFC 6749 §4.4: confidential clients only; no refresh token.
        if (client.public || !client.grantTypes.includes('client_credentials') || !client.orgId) {
          throw new OAuthError('unauthorized_client', 'This client may not use the client_credentials grant.')
        }
        const scope = grantScope(form.get('scope'), client.scope)
        const token = await issueAccessToken(deps.tokens, {
          subject: client.id,
          orgId: client.orgId,
          clientId: client.id,
          scope,
        })
        return tokenResponse(token, scope)
      }
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          `The ${grantType.slice(0, 64)} grant is not supported.`,
        )
    }
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error)
    deps.log(error)
    return oauthErrorResponse(
      new OAuthError('server_error', 'The server could not complete the request.', 500),
    )
  }
}
