import { identitySection } from '../idp/account.ts'
import type { OAuthContext } from '../oauth/context.ts'
import { readForm } from '../oauth/form.ts'
import { accountStep, type InteractionTarget, loginPage, messagePage } from '../oauth/interaction.ts'
import { forbiddenForm, pageHandler, RELOAD_ADVICE } from '../oauth/page-handler.ts'
import { html } from '../oauth/pages/html.ts'
import { pageResponse, seeOther } from '../oauth/pages/layout.ts'
import { secondFactorPolicy } from '../oauth/second-factor-policy.ts'
import { csrfOk, csrfValue, loggedInUser, logoutCookie } from '../oauth/session.ts'
import { isLocalPath } from '../oauth/sign-in.ts'
import { passkeySection } from '../passkeys/account.ts'
import { passkeysUnavailable } from '../passkeys/relying-party.ts'
import { PASSKEY_SCRIPT_PATH } from '../passkeys/script.ts'
import type { LoginUser } from '../store/types.ts'
import { accountBody } from './account-body.ts'
import { noticeKey } from './notices.ts'
import { recoverySection } from './recovery-section.ts'
import { type AccountSection, type AccountView, accountUrl } from './sections.ts'
import { totpSection } from './totp-section.ts'

/** The sections, in the page's order (docs/oauth.md, "The pages and their names"). */
const SECTIONS: readonly AccountSection[] = [totpSection, recoverySection, passkeySection, identitySection]

/** The query's `next`, when it is a path on this server. */
function nextOf(request: Request): string | null {
  const next = new URL(request.url).searchParams.get('next')
  return next !== null && isLocalPath(next) ? next : null
}

function signInTarget(next: string | null): InteractionTarget {
  const here = accountUrl({ next })
  return {
    action: here,
    request: '',
    continueUrl: here,
    orgId: null,
    purpose: html`Sign in to manage your account.`,
  }
}

function view(user: LoginUser, csrf: string, next: string | null, notice: string | null): AccountView {
  return { user, form: { action: accountUrl({ next }), request: '', csrf }, next, notice }
}

async function show(ctx: OAuthContext, request: Request): Promise<Response> {
  const next = nextOf(request)
  const user = await loggedInUser(ctx, request, null)
  if (!user) return loginPage(ctx, request, signInTarget(next))
  const csrf = csrfValue(ctx, request)
  const page = view(user, csrf.value, next, noticeKey(new URL(request.url).searchParams.get('notice')))
  const sections = await Promise.all(SECTIONS.map((s) => s.render(ctx, page)))
  return pageResponse({
    title: 'Your account',
    body: accountBody(page, await secondFactorPolicy(ctx, user), sections),
    cookies: csrf.cookies,
    // The passkey script only where a passkey can be added (server/passkeys/relying-party.ts).
    scripts: passkeysUnavailable(ctx.issuer) ? [] : [PASSKEY_SCRIPT_PATH],
  })
}

/** A section's 303 back to `/account` keeps the page's `next`, whether or not the section kept it. */
function keepNext(response: Response, next: string | null): Response {
  const location = response.headers.get('location')
  if (response.status !== 303 || !next || location === null) return response
  const url = new URL(location, 'http://x')
  if (url.pathname !== '/account' || url.searchParams.has('next')) return response
  url.searchParams.set('next', next)
  response.headers.set('location', `${url.pathname}${url.search}`)
  return response
}

async function submit(ctx: OAuthContext, request: Request): Promise<Response> {
  const form = await readForm(request)
  if (!csrfOk(ctx, request, form)) return forbiddenForm(RELOAD_ADVICE)
  const next = nextOf(request)
  const user = await loggedInUser(ctx, request, null)
  if (!user)
    return (await accountStep(ctx, request, form, signInTarget(next))) ?? seeOther(accountUrl({ next }))
  const step = form.get('step') ?? ''
  if (step === 'sign-out') return seeOther(accountUrl({ next }), [logoutCookie(ctx)])
  const section = SECTIONS.find((s) => s.steps.includes(step))
  if (!section) return messagePage(400, 'Unknown step', 'Go back and try again.')
  const page = view(user, form.get('csrf') ?? '', next, null)
  return keepNext(await section.handle(ctx, request, form, page), next)
}

/** GET and POST `/account`: a signed-in user's second factors and linked providers. */
export const accountPage = pageHandler(show, submit)
