import { roleScopes } from '../../auth/roles.ts'
import type { OAuthClient } from '../../store/types.ts'
import type { OAuthContext } from '../context.ts'
import { OAuthError } from '../errors.ts'
import { SLOW_DOWN_STEP_S } from '../lifetimes.ts'
import { intersectScope } from '../scopes.ts'
import { startGrant, userTokenResponse } from './issue.ts'

/** grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). */
export async function deviceCodeGrant(
  ctx: OAuthContext,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<Response> {
  const deviceCode = form.get('device_code')
  if (!deviceCode) throw new OAuthError('invalid_request', 'device_code is required.')
  const now = ctx.clock()
  const record = await ctx.store.deviceCodes.find(deviceCode)
  if (!record || record.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The device code is not valid.')
  if (record.expiresAt <= now)
    throw new OAuthError('expired_token', 'The device code has expired; start again.')
  // RFC 8628 §3.5: polling faster than the interval raises it by 5 s, for this and every later poll.
  if (record.lastPolledAt !== null && now - record.lastPolledAt < record.interval * 1000) {
    const interval = record.interval + SLOW_DOWN_STEP_S
    await ctx.store.deviceCodes.recordPoll(record.hash, interval, now)
    throw new OAuthError('slow_down', `Polling too fast: wait ${interval} seconds between requests.`)
  }
  await ctx.store.deviceCodes.recordPoll(record.hash, record.interval, now)
  switch (record.status) {
    case 'pending':
      throw new OAuthError('authorization_pending', 'The user has not answered yet.')
    case 'denied':
      throw new OAuthError('access_denied', 'The user denied the request.')
    case 'redeemed':
      throw new OAuthError('invalid_grant', 'The device code was already used.')
  }
  const user = record.userId ? await ctx.store.users.byId(record.userId) : null
  if (!user || user.orgId !== record.orgId)
    throw new OAuthError('invalid_grant', 'The user no longer exists.')
  const scope = intersectScope(ctx.schema, record.scope, roleScopes(ctx.schema, user.role), client.scope)
  if (scope.length === 0)
    throw new OAuthError('invalid_scope', "The user's role allows none of the granted scopes.")
  const issued = await ctx.store.transaction(async (tx) =>
    (await tx.deviceCodes.redeem(record.hash, now))
      ? await startGrant({ ...ctx, store: tx }, client, user, scope, now)
      : null,
  )
  if (!issued) throw new OAuthError('invalid_grant', 'The device code was already used.')
  return userTokenResponse(ctx, issued.grant, scope, issued.refreshToken)
}
