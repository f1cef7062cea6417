import { roleScopes } from '../../auth/roles.ts'
import type { OAuthClient } from '../../store/types.ts'
import type { OAuthContext } from '../context.ts'
import { OAuthError } from '../errors.ts'
import { intersectScope, parseScope } from '../scopes.ts'
import { newRefreshToken, userTokenResponse } from './issue.ts'

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description)

/**
 * grant_type=refresh_token (RFC 6749 §6). Every use rotates the token; presenting a rotated one
 * again revokes the whole grant (RFC 9700 §4.14.2), since either the client or an attacker holds
 * a copy and the server cannot tell which.
 */
export async function refreshTokenGrant(
  ctx: OAuthContext,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<Response> {
  const token = form.get('refresh_token')
  if (!token) throw new OAuthError('invalid_request', 'refresh_token is required.')
  const now = ctx.clock()
  const record = await ctx.store.grants.findRefreshToken(token)
  const grant = record && (await ctx.store.grants.find(record.grantId))
  // RFC 6749 §6: bound to the client it was issued to.
  if (!record || !grant || grant.clientId !== client.id) throw invalidGrant('The refresh token is not valid.')
  if (grant.revoked) throw invalidGrant('The refresh token has been revoked.')
  if (record.used) {
    await ctx.store.grants.revoke(grant.id, now)
    throw invalidGrant('The refresh token was already used; every token of its grant is revoked.')
  }
  if (record.expiresAt <= now || grant.expiresAt <= now) throw invalidGrant('The refresh token has expired.')
  const user = await ctx.store.users.byId(grant.userId)
  if (!user || user.orgId !== grant.orgId) throw invalidGrant('The user of this grant no longer exists.')
  // RFC 6749 §6: a narrower scope may be asked; never more than the grant, the role (now) and the client allow.
  const asked = parseScope(ctx.schema, form.get('scope'))
  if (asked !== null) {
    const beyond = asked.filter((s) => !grant.scope.includes(s))
    if (beyond.length > 0) throw new OAuthError('invalid_scope', `Not granted: ${beyond.join(' ')}.`)
  }
  const scope = intersectScope(
    ctx.schema,
    asked ?? grant.scope,
    roleScopes(ctx.schema, user.role),
    client.scope,
  )
  if (scope.length === 0)
    throw new OAuthError('invalid_scope', "The user's role allows none of the granted scopes.")
  const rotated = await ctx.store.transaction(async (tx) => {
    if (!(await tx.grants.markRefreshTokenUsed(token, now))) return null
    return await newRefreshToken(tx, grant, now)
  })
  if (rotated === null) {
    await ctx.store.grants.revoke(grant.id, now)
    throw invalidGrant('The refresh token was already used; every token of its grant is revoked.')
  }
  return userTokenResponse(ctx, grant, scope, rotated)
}
