import { issueAccessToken } from '../auth/tokens.ts'
import type { OAuthClient } from '../store/types.ts'
import { identifyClient } from './client-auth.ts'
import type { OAuthContext } from './context.ts'
import { OAuthError, oauthErrorResponse, unavailableOAuthError } from './errors.ts'
import { readForm } from './form.ts'
import { authorizationCodeGrant } from './grants/authorization-code.ts'
import { deviceCodeGrant } from './grants/device-code.ts'
import { tokenResponse } from './grants/issue.ts'
import { refreshTokenGrant } from './grants/refresh-token.ts'
import { grantScope } from './scopes.ts'

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code'

/** RFC 6749 §4.4: confidential clients of an organization only; no refresh token. */
async function clientCredentialsGrant(ctx: OAuthContext, client: OAuthClient, form: Map<string, string>) {
  if (client.public || !client.orgId)
    throw new OAuthError('unauthorized_client', 'This client may not use the client_credentials grant.')
  const scope = grantScope(ctx.schema, form.get('scope'), client.scope)
  const token = await issueAccessToken(ctx.tokens, {
    subject: client.id,
    orgId: client.orgId,
    clientId: client.id,
    scope,
  })
  return tokenResponse({
    access_token: token.accessToken,
    token_type: 'Bearer',
    expires_in: token.expiresIn,
    scope: scope.join(' '),
  })
}

const GRANTS: Record<
  string,
  (ctx: OAuthContext, client: OAuthClient, form: Map<string, string>) => Promise<Response>
> = {
  client_credentials: clientCredentialsGrant,
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  [DEVICE_CODE]: deviceCodeGrant,
}

/**
 * Runs an OAuth endpoint: OAuthErrors become RFC 6749 §5.2 answers, a database that cannot be
 * reached a 503, anything else a 500 that hides its cause.
 */
export async function oauthEndpoint(ctx: OAuthContext, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error)
    const unavailable = unavailableOAuthError(error)
    if (unavailable) return oauthErrorResponse(unavailable)
    ctx.log(error)
    return oauthErrorResponse(
      new OAuthError('server_error', 'The server could not complete the request.', 500),
    )
  }
}

export function requirePost(request: Request): void {
  if (request.method !== 'POST')
    throw new OAuthError('invalid_request', 'This endpoint accepts POST only.', 405, { Allow: 'POST' })
}

/**
 * POST /oauth/token (RFC 6749 §3.2). The implicit and password grants do not exist here (RFC
 * 9700 §2.1.2, §2.4): they answer unsupported_grant_type like any unknown grant.
 */
export function tokenEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  return oauthEndpoint(ctx, async () => {
    requirePost(request)
    const form = await readForm(request)
    const grantType = form.get('grant_type')
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.')
    const client = await identifyClient(ctx, request, form)
    const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined
    if (!grant)
      throw new OAuthError('unsupported_grant_type', `The ${grantType.slice(0, 64)} grant is not supported.`)
    if (!(client.grantTypes as string[]).includes(grantType))
      throw new OAuthError('unauthorized_client', `This client may not use the ${grantType} grant.`)
    return grant(ctx, client, form)
  })
}
