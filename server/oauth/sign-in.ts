import { newId } from '../../shared/ids.ts'
import { events } from '../../shared/resources/events.ts'
import { users } from '../../shared/resources/users.ts'
import { isoNow } from '../../shared/time.ts'
import { currentRequestId } from '../ops/logger.ts'
import type { LoginUser } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { readCookie, setCookie } from './cookies.ts'
import { INTERACTION_TTL_S } from './lifetimes.ts'
import { seeOther } from './pages/layout.ts'
import { loginCookie } from './session.ts'

/** How a user proved who they are first: a password, an outside provider (`idp:corp`), or a passkey. */
export type FirstFactor = 'password' | `idp:${string}` | 'passkey'

/** The second factor that completed a sign-in, or null when none was asked. */
export type SecondFactor = 'totp' | 'recovery_code' | 'passkey' | null

/** Where a sign-in goes on once it is complete, carried (signed) through every step of it. */
export interface SignInTarget {
  /** A path on this server (`/oauth/authorize?...`, `/device?...`, `/account`): never another origin. */
  next: string
  /** The organization whose users may sign in (a client registered to one); null for any. */
  orgId: string | null
  /** Origins the browser may be sent to after the last form (the client's redirect URI's), for `form-action`. */
  formTargets?: string[]
}

/**
 * The end of a first factor (password, outside provider, passkey): every way of signing in ends
 * here, so the second-factor step, the policies and the `user.signed_in` event hold for all of
 * them. A user with a second factor (a confirmed authenticator app or a passkey) is not signed in
 * yet: a pending cookie carries the user, the first factor and the target to `/login/verify`.
 * A passkey proves two factors itself (something held, and the PIN or biometric that unlocked it).
 */
export async function completeSignIn(
  ctx: OAuthContext,
  _request: Request,
  user: LoginUser,
  method: FirstFactor,
  target: SignInTarget,
): Promise<Response> {
  if (method !== 'passkey') {
    const factors = await ctx.store.signIn.factorsOf(user.id)
    if (factors.totp || factors.passkeys > 0)
      return seeOther('/login/verify', [pendingCookie(ctx, { userId: user.id, method, target })])
  }
  return finishSignIn(ctx, user, method, null, target)
}

/**
 * Signs the user in (the login cookie; the pending cookie cleared), appends `user.signed_in`
 * with both factors, and continues to `target.next`.
 */
export async function finishSignIn(
  ctx: OAuthContext,
  user: LoginUser,
  method: FirstFactor,
  secondFactor: SecondFactor,
  target: SignInTarget,
): Promise<Response> {
  await appendUserEvent(ctx, user, 'signed_in', { method, secondFactor })
  return seeOther(target.next, [loginCookie(ctx, user.id), clearPendingCookie(ctx)])
}

/**
 * Appends `user.{change}` (`user.signed_in`, `user.mfa_enrolled`, ...) to the user's organization's
 * event log, with the user as actor (or `actor` when another acts, as the admin commands do) and
 * the request's id. `data` says what happened and must never hold a secret (a code, a key, a token).
 */
export async function appendUserEvent(
  ctx: Pick<OAuthContext, 'store' | 'clock'>,
  user: { id: string; orgId: string; email: string },
  change: string,
  data: Record<string, unknown>,
  actor: { type: 'user' | 'client' | 'system'; id: string } = { type: 'user', id: user.id },
): Promise<void> {
  await ctx.store.events.append({
    id: newId(events.prefix),
    orgId: user.orgId,
    now: isoNow(ctx.clock()),
    type: `${users.eventName}.${change}`,
    resource: users.name,
    resourceId: user.id,
    data: { id: user.id, email: user.email, ...data },
    actor,
    requestId: currentRequestId() ?? null,
  })
}

/**
 * A sign-in target as a signed value for a link or hidden field (`/login/corp?flow=...`, the
 * passkey form): the steps that follow read it with `readSignInTarget`, so no one can send a user
 * on to another origin or another organization's sign-in.
 */
export function signSignInTarget(ctx: OAuthContext, target: SignInTarget): string {
  return ctx.signer.sign('sign-in', target, INTERACTION_TTL_S)
}

/** The target of `signSignInTarget`, or null when the signature, expiry or shape is wrong. */
export function readSignInTarget(ctx: OAuthContext, value: string | null | undefined): SignInTarget | null {
  return parseTarget(ctx.signer.verify('sign-in', value))
}

function parseTarget(data: unknown): SignInTarget | null {
  if (typeof data !== 'object' || data === null) return null
  const { next, orgId, formTargets } = data as Record<string, unknown>
  if (typeof next !== 'string' || !isLocalPath(next)) return null
  if (orgId !== null && typeof orgId !== 'string') return null
  if (
    formTargets !== undefined &&
    !(Array.isArray(formTargets) && formTargets.every((t) => typeof t === 'string'))
  )
    return null
  return { next, orgId, ...(formTargets ? { formTargets: formTargets as string[] } : {}) }
}

/** A path on this server: one leading slash, not `//host` nor `/\host` (which browsers read as another host). */
export const isLocalPath = (value: string): boolean => /^\/(?![/\\])/.test(value)

/** A first factor waits this long for its second (the pending cookie's lifetime). */
const PENDING_SIGN_IN_TTL_S = 300

/** A sign-in whose first factor passed and whose second factor is still to come. */
export interface PendingSignIn {
  userId: string
  method: FirstFactor
  target: SignInTarget
}

/**
 * The pending cookie: signed, HttpOnly, SameSite=Lax, for five minutes. It is not the login
 * cookie: no page that needs a signed-in user reads it, only `/login/verify`.
 */
function pendingCookie(ctx: OAuthContext, pending: PendingSignIn): string {
  const value = ctx.signer.sign(
    'pending-sign-in',
    { uid: pending.userId, method: pending.method, target: pending.target },
    PENDING_SIGN_IN_TTL_S,
  )
  return setCookie(ctx.cookies, ctx.cookies.pending, value, PENDING_SIGN_IN_TTL_S)
}

const clearPendingCookie = (ctx: OAuthContext): string => setCookie(ctx.cookies, ctx.cookies.pending, '', 0)

/** The request's pending sign-in, or null when its cookie is missing, forged, expired or malformed. */
export function readPendingSignIn(ctx: OAuthContext, request: Request): PendingSignIn | null {
  const data = ctx.signer.verify('pending-sign-in', readCookie(request, ctx.cookies.pending))
  if (typeof data !== 'object' || data === null) return null
  const { uid, method, target } = data as Record<string, unknown>
  const parsed = parseTarget(target)
  if (typeof uid !== 'string' || typeof method !== 'string' || !parsed) return null
  if (method !== 'password' && method !== 'passkey' && !method.startsWith('idp:')) return null
  return { userId: uid, method: method as FirstFactor, target: parsed }
}
