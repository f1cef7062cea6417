import { identifyClient } from './client-auth.ts'
import type { OAuthContext } from './context.ts'
import { OAuthError } from './errors.ts'
import { readForm } from './form.ts'
import { tokenResponse } from './grants/issue.ts'
import { DEVICE_CODE_TTL_S, DEVICE_POLL_INTERVAL_S } from './lifetimes.ts'
import { formatUserCode, randomToken, randomUserCode } from './random.ts'
import { intersectScope, parseScope } from './scopes.ts'
import { oauthEndpoint, requirePost } from './token-endpoint.ts'

/** POST /oauth/device_authorization (RFC 8628 §3.1, §3.2). */
export function deviceAuthorizationEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  return oauthEndpoint(ctx, async () => {
    requirePost(request)
    const form = await readForm(request)
    const client = await identifyClient(ctx, request, form)
    if (!client.grantTypes.includes('urn:ietf:params:oauth:grant-type:device_code'))
      throw new OAuthError('unauthorized_client', 'This client may not use the device authorization grant.')
    const asked = parseScope(ctx.schema, form.get('scope'))
    const scope = asked === null ? null : intersectScope(ctx.schema, asked, client.scope)
    if (scope !== null && scope.length === 0)
      throw new OAuthError('invalid_scope', 'This client may ask for none of the requested scopes.')
    const now = ctx.clock()
    const deviceCode = randomToken('dc')
    let userCode = randomUserCode()
    // 20^8 codes: a clash with a live one is rare; draw again when it happens.
    for (let tries = 0; ; tries++) {
      const stored = await ctx.store.deviceCodes.insert(
        deviceCode,
        {
          userCode,
          clientId: client.id,
          requestedScope: scope === null ? null : scope.join(' '),
          interval: DEVICE_POLL_INTERVAL_S,
          expiresAt: now + DEVICE_CODE_TTL_S * 1000,
        },
        now,
      )
      if (stored) break
      if (tries >= 5) throw new Error('could not draw a free user code')
      userCode = randomUserCode()
    }
    const shown = formatUserCode(userCode)
    return tokenResponse({
      device_code: deviceCode,
      user_code: shown,
      verification_uri: `${ctx.issuer}/device`,
      verification_uri_complete: `${ctx.issuer}/device?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_S,
      interval: DEVICE_POLL_INTERVAL_S,
    })
  })
}
