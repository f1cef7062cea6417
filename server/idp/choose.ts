/**
 * One verified e-mail address with accounts in several organizations: the person picks one, as
 * after a password (`POST /login/{key}/choose`), and the identity is linked to that one.
 */
import type { OAuthContext } from '../oauth/context.ts'
import { readForm } from '../oauth/form.ts'
import { failurePage, messagePage } from '../oauth/interaction.ts'
import { INTERACTION_TTL_S } from '../oauth/lifetimes.ts'
import { pageResponse } from '../oauth/pages/layout.ts'
import { chooseAccountBody } from '../oauth/pages/pages.ts'
import { csrfOk, csrfValue } from '../oauth/session.ts'
import { completeSignIn, readSignInTarget, type SignInTarget, signSignInTarget } from '../oauth/sign-in.ts'
import type { LoginUser } from '../store/types.ts'
import type { ActiveProvider } from './context.ts'
import { linkIdentity } from './link.ts'

/** What the choice continues: the identity the provider vouched for, the accounts offered, the target. */
interface Choice {
  key: string
  subject: string
  email: string
  ids: string[]
  flow: string
}

/** The page asking which organization's account to sign in to. */
export function choosePage(
  ctx: OAuthContext,
  request: Request,
  active: ActiveProvider,
  identity: { subject: string; email: string },
  found: LoginUser[],
  target: SignInTarget,
): Response {
  const csrf = csrfValue(ctx, request)
  const choice: Choice = {
    key: active.provider.key,
    subject: identity.subject,
    email: identity.email,
    ids: found.map((u) => u.id),
    flow: signSignInTarget(ctx, target),
  }
  const signed = ctx.signer.sign('idp-choice', choice, INTERACTION_TTL_S)
  return pageResponse({
    title: 'Choose an organization',
    body: chooseAccountBody(
      { action: `/login/${active.provider.key}/choose`, request: signed, csrf: csrf.value },
      found,
      '',
    ),
    formTargets: target.formTargets,
    cookies: csrf.cookies,
  })
}

/** `POST /login/{key}/choose`: the chosen account, linked and signed in. */
export async function chooseStep(
  ctx: OAuthContext,
  request: Request,
  active: ActiveProvider,
): Promise<Response> {
  try {
    const form = await readForm(request).catch(() => new Map<string, string>())
    if (!csrfOk(ctx, request, form))
      return messagePage(
        403,
        'Request refused',
        'This form was not sent from this site. Start again from the sign-in page.',
      )
    const choice = ctx.signer.verify('idp-choice', form.get('request')) as Choice | null
    const target = choice ? readSignInTarget(ctx, choice.flow) : null
    const chosen = form.get('account')
    if (!choice || !target || choice.key !== active.provider.key || !chosen || !choice.ids.includes(chosen))
      return messagePage(
        400,
        'Sign-in expired',
        'That choice has expired. Start again from the sign-in page.',
      )
    const user = await ctx.store.users.byId(chosen)
    // Still the address the provider vouched for, and still allowed here.
    if (
      !user ||
      user.email.toLowerCase() !== choice.email.toLowerCase() ||
      (target.orgId !== null && user.orgId !== target.orgId)
    )
      return messagePage(
        400,
        'Sign-in expired',
        'That account can no longer be chosen. Start again from the sign-in page.',
      )
    await linkIdentity(
      ctx,
      active,
      { subject: choice.subject, email: choice.email, unverifiedEmail: null, name: null },
      user,
    )
    return completeSignIn(ctx, request, user, `idp:${active.provider.key}`, target)
  } catch (error) {
    return failurePage(ctx, error)
  }
}
