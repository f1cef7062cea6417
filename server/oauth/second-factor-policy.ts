import type { LoginUser } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { seeOther } from './pages/layout.ts'

// A factor is a confirmed authenticator app or a passkey: recovery codes alone stand in for a
// lost factor, they are not one.
async function mustEnrolSecondFactor(
  ctx: Pick<OAuthContext, 'store'>,
  user: Pick<LoginUser, 'id' | 'orgId' | 'role'>,
): Promise<boolean> {
  const policy = await ctx.store.signIn.policyOf(user.orgId)
  if (policy === 'none' || (policy === 'admins' && user.role !== 'admin')) return false
  const factors = await ctx.store.signIn.factorsOf(user.id)
  return !factors.totp && factors.passkeys === 0
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
  if (!(await mustEnrolSecondFactor(ctx, user))) return null
  return seeOther(`/account?next=${encodeURIComponent(continueUrl)}`)
}
