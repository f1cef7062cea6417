import { roleScopes } from '../../auth/roles.ts'
import type { OAuthClient } from '../../store/types.ts'
import type { OAuthContext } from '../context.ts'
import { OAuthError } from '../errors.ts'
import { checkVerifier } from '../pkce.ts'
import { intersectScope } from '../scopes.ts'
import { startGrant, userTokenResponse } from './issue.ts'

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description)

/** grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export async function authorizationCodeGrant(
  ctx: OAuthContext,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<Response> {
  const code = form.get('code')
  if (!code) throw new OAuthError('invalid_request', 'code is required.')
  const redirectUri = form.get('redirect_uri')
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required.')
  const now = ctx.clock()
  const record = await ctx.store.codes.find(code)
  // RFC 6749 §4.1.3: the code is bound to the client it was issued to.
  if (!record || record.clientId !== client.id) throw invalidGrant('The code is not valid.')
  if (record.usedAt !== null) {
    // RFC 6749 §4.1.2 and RFC 9700 §4.5: a second redemption revokes what the first one issued.
    if (record.grantId) await ctx.store.grants.revoke(record.grantId, now)
    throw invalidGrant('The code was already used; the tokens issued for it are revoked.')
  }
  if (record.expiresAt <= now) throw invalidGrant('The code has expired.')
  if (redirectUri !== record.redirectUri)
    throw invalidGrant('redirect_uri differs from the one of the authorization request.')
  checkVerifier(record.codeChallenge, form.get('code_verifier'))
  const user = await ctx.store.users.byId(record.userId)
  if (!user || user.orgId !== record.orgId) throw invalidGrant('The user of this code no longer exists.')
  // The role may have changed since the consent: never more than it allows now.
  const scope = intersectScope(ctx.schema, record.scope, roleScopes(ctx.schema, user.role), client.scope)
  if (scope.length === 0)
    throw new OAuthError('invalid_scope', "The user's role allows none of the granted scopes.")
  const issued = await ctx.store.transaction(async (tx) => {
    // Two concurrent redemptions: only one marks the code; the other is a reuse.
    if (!(await tx.codes.markUsed(code, now))) return null
    const started = await startGrant({ ...ctx, store: tx }, client, user, scope, now)
    await tx.codes.setGrant(code, started.grant.id, now)
    return started
  })
  if (!issued) {
    const again = await ctx.store.codes.find(code)
    if (again?.grantId) await ctx.store.grants.revoke(again.grantId, now)
    throw invalidGrant('The code was already used; the tokens issued for it are revoked.')
  }
  return userTokenResponse(ctx, issued.grant, scope, issued.refreshToken)
}
