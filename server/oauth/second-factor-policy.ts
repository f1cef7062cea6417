import type { LoginUser } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { seeOther } from './pages/layout.ts'

/**
 * Whether the user's organization requires a second factor of them (`all`, or `admins` and they
 * are an admin), and whether they have one: a confirmed authenticator app or a passkey (recovery
 * codes alone stand in for a lost factor, they are not one). The account page shows its alert from it.
 */
export async function secondFactorPolicy(
  ctx: Pick<OAuthContext, 'store'>,
  user: Pick<LoginUser, 'id' | 'orgId' | 'role'>,
): Promise<{ required: boolean; hasFactor: boolean }> {
  const policy = await ctx.store.signIn.policyOf(user.orgId)
  const required = policy === 'all' || (policy === 'admins' && user.role === 'admin')
  if (!required) return { required, hasFactor: false }
  const factors = await ctx.store.signIn.factorsOf(user.id)
  return { required, hasFactor: factors.totp || factors.passkeys > 0 }
}

/**
 * The answer for a signed-in user who must enrol first: 303 to the account page, which comes back
 * to `continueUrl` (the consent page they were on) once a factor is enrolled; null when they may go
 * on. The authorization and device pages ask it before any consent page, code or approval.
 */
export async function enrolFirst(
  ctx: Pick<OAuthContext, 'store'>,
  user: Pick<LoginUser, 'id' | 'orgId' | 'role'>,
  continueUrl: string,
): Promise<Response | null> {
  const { required, hasFactor } = await secondFactorPolicy(ctx, user)
  if (!required || hasFactor) return null
  return seeOther(`/account?next=${encodeURIComponent(continueUrl)}`)
}

/**
 * Whether the factor a user is about to remove is the last one their organization requires of
 * them: the account page refuses that removal, since the next sign-in would lead them straight
 * back to enrol (a lost factor is what recovery codes and `user reset-2fa` are for).
 */
export async function isLastRequiredFactor(
  ctx: Pick<OAuthContext, 'store'>,
  user: Pick<LoginUser, 'id' | 'orgId' | 'role'>,
): Promise<boolean> {
  const { required } = await secondFactorPolicy(ctx, user)
  if (!required) return false
  const factors = await ctx.store.signIn.factorsOf(user.id)
  return (factors.totp ? 1 : 0) + factors.passkeys <= 1
}
