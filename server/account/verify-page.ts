import type { OAuthContext } from '../oauth/context.ts'
import { readForm } from '../oauth/form.ts'
import { tooManyAttempts } from '../oauth/interaction.ts'
import { forbiddenForm, pageHandler, RELOAD_ADVICE } from '../oauth/page-handler.ts'
import { pageResponse, seeOther } from '../oauth/pages/layout.ts'
import { csrfOk, csrfValue, loggedInUser } from '../oauth/session.ts'
import { finishSignIn, type PendingSignIn, readPendingSignIn, type SecondFactor } from '../oauth/sign-in.ts'
import { PASSKEY_SCRIPT_PATH } from '../passkeys/script.ts'
import { passkeyVerifyOption, verifyPasskeyAsSecondFactor } from '../passkeys/verify-option.ts'
import type { LoginUser } from '../store/types.ts'
import { useRecoveryCode } from './recovery-codes.ts'
import { checkTotpCode } from './totp.ts'
import { expiredBody, type VerifyView, verifyBody } from './verify-body.ts'

async function verifyPage(
  ctx: OAuthContext,
  request: Request,
  pending: PendingSignIn,
  user: LoginUser,
  error?: VerifyView['error'],
): Promise<Response> {
  const csrf = csrfValue(ctx, request)
  const { totp } = await ctx.store.signIn.factorsOf(user.id)
  const passkeyOption = await passkeyVerifyOption(ctx, user, csrf.value)
  return pageResponse({
    title: 'Two-step verification',
    status: error ? 401 : 200,
    body: verifyBody({ csrf: csrf.value, totp, error, passkeyOption }),
    // The passkey script only for a user with a passkey: every other page runs none.
    scripts: passkeyOption.value ? [PASSKEY_SCRIPT_PATH] : [],
    // The last redirect may go on to the client (an error answer), as after the login form.
    formTargets: pending.target.formTargets,
    cookies: csrf.cookies,
  })
}

/** The pending sign-in and its user, or the answer when there is none (any more). */
async function pendingUser(
  ctx: OAuthContext,
  request: Request,
): Promise<{ pending: PendingSignIn; user: LoginUser } | Response> {
  const pending = readPendingSignIn(ctx, request)
  const user = pending ? await ctx.store.users.byId(pending.userId) : null
  if (pending && user && (pending.target.orgId === null || pending.target.orgId === user.orgId))
    return { pending, user }
  if (await loggedInUser(ctx, request, null)) return seeOther('/account')
  return pageResponse({ title: 'Sign-in expired', status: 400, body: expiredBody() })
}

async function show(ctx: OAuthContext, request: Request): Promise<Response> {
  const found = await pendingUser(ctx, request)
  if (found instanceof Response) return found
  return verifyPage(ctx, request, found.pending, found.user)
}

const FAILURES: Record<string, { field: 'code' | 'recovery' | 'passkey'; message: string }> = {
  totp: {
    field: 'code',
    message: 'That code is not right, or was used already. Wait for the next code and try again.',
  },
  recovery: { field: 'recovery', message: 'That recovery code is not right, or was used already.' },
  passkey: { field: 'passkey', message: 'The passkey could not be verified. Try again or use a code.' },
}

/** Checks the second factor the form carries; the step names which. */
async function check(
  ctx: OAuthContext,
  user: LoginUser,
  form: Map<string, string>,
): Promise<SecondFactor | 'failed'> {
  switch (form.get('step')) {
    case 'totp':
      return (await checkTotpCode(ctx, user.id, form.get('code') ?? '', false)) ? 'totp' : 'failed'
    case 'recovery':
      return (await useRecoveryCode(ctx, user.id, form.get('recovery_code') ?? ''))
        ? 'recovery_code'
        : 'failed'
    case 'passkey':
      return (await verifyPasskeyAsSecondFactor(ctx, user, form)) ? 'passkey' : 'failed'
  }
  return 'failed'
}

async function submit(ctx: OAuthContext, request: Request): Promise<Response> {
  const form = await readForm(request)
  if (!csrfOk(ctx, request, form)) return forbiddenForm(RELOAD_ADVICE)
  const found = await pendingUser(ctx, request)
  if (found instanceof Response) return found
  const { pending, user } = found
  const throttle = ctx.limits.secondFactorPerUser
  const retryAfter = await throttle.retryAfter(user.id)
  // Past the limit nothing is checked, not even a right code.
  if (retryAfter > 0) return tooManyAttempts(retryAfter, 'wrong codes')
  const factor = await check(ctx, user, form)
  if (factor === 'failed') {
    await throttle.fail(user.id)
    return verifyPage(ctx, request, pending, user, FAILURES[form.get('step') ?? ''] ?? FAILURES.totp)
  }
  await throttle.reset(user.id)
  return finishSignIn(ctx, user, pending.method, factor, pending.target)
}

/** GET and POST `/login/verify`: the second step of a sign-in (docs/oauth.md, "Second factors"). */
export const secondFactorPage = pageHandler(show, submit)
