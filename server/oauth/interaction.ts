import { clientAddress } from '../http/client-address.ts'
import { providerLinks } from '../idp/login-links.ts'
import { passkeyButton } from '../passkeys/login-button.ts'
import { PASSKEY_SCRIPT_PATH } from '../passkeys/script.ts'
import type { OAuthContext } from './context.ts'
import { unavailableOAuthError } from './errors.ts'
import { checkLogin } from './login.ts'
import { type Html, html } from './pages/html.ts'
import { pageResponse, seeOther } from './pages/layout.ts'
import { chooseAccountBody, loginBody, messageBody } from './pages/pages.ts'
import { csrfValue, loggedInUser, logoutCookie } from './session.ts'
import { completeSignIn, type SignInTarget } from './sign-in.ts'

/** Where an interaction (an authorization request, or a device's user code) is at, for the login steps. */
/**
 * A page's signed hidden field (or `flow` parameter): the flow it continues, a string under `key`
 * (the authorization request's query, the device code's hash), and the user the consent page was
 * shown to. Null when the signature, purpose, expiry or shape is wrong.
 */
export function readSignedFlow(
  ctx: OAuthContext,
  purpose: string,
  key: string,
  value: string | null | undefined,
): { flow: string; uid?: string } | null {
  const data = ctx.signer.verify(purpose, value)
  if (typeof data !== 'object' || data === null) return null
  const fields = data as Record<string, unknown>
  const flow = fields[key]
  const uid = fields.uid
  if (typeof flow !== 'string' || (uid !== undefined && typeof uid !== 'string')) return null
  return { flow, ...(uid === undefined ? {} : { uid }) }
}

export interface InteractionTarget {
  /** The path the forms post to. */
  action: string
  /** The signed request the login forms carry. */
  request: string
  /** Where the browser goes once logged in (or logged out): the page that then asks for consent. */
  continueUrl: string
  /** The client's organization: only its users may log in. Null for the CLI's client (any organization). */
  orgId: string | null
  /** Who asks, for the login page ("api command-line client wants to access your account."). */
  purpose: Html
  /**
   * The client's redirect origin: after a login the browser may go on to the client in the same
   * navigation (an error answer), and Chromium checks `form-action` on every redirect of it.
   */
  formTargets?: string[]
}

const ACCOUNTS_TTL_S = 300

/** Where a sign-in that began on this interaction's login page goes on once complete. */
const signInTarget = (target: InteractionTarget): SignInTarget => ({
  next: target.continueUrl,
  orgId: target.orgId,
  ...(target.formTargets ? { formTargets: target.formTargets } : {}),
})

/**
 * The page of a request that failed unexpectedly: 503 with Retry-After while the database cannot
 * be reached (the person tries again), else 500, its cause logged and not shown.
 */
export function failurePage(ctx: OAuthContext, error: unknown): Response {
  const unavailable = unavailableOAuthError(error)
  if (unavailable) {
    const response = messagePage(503, 'Try again in a moment', unavailable.description)
    for (const [name, value] of Object.entries(unavailable.headers)) response.headers.set(name, value)
    return response
  }
  ctx.log(error)
  return messagePage(
    500,
    'Something went wrong',
    'The server could not complete the request. Try again later.',
  )
}

/** 429 with Retry-After, for a throttled form. */
export function tooManyAttempts(retryAfter: number, what: string): Response {
  const response = messagePage(
    429,
    'Too many attempts',
    `Too many ${what}. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
  )
  response.headers.set('Retry-After', String(retryAfter))
  return response
}

/** A page that only tells something: an error, or the end of the device flow. */
export function messagePage(status: number, title: string, message: string, detail?: string): Response {
  return pageResponse({ status, title, body: messageBody(title, message, detail) })
}

export async function loginPage(
  ctx: OAuthContext,
  request: Request,
  target: InteractionTarget,
  options: { email?: string; error?: string; status?: number } = {},
): Promise<Response> {
  const csrf = csrfValue(ctx, request)
  const passkey = await passkeyButton(ctx, signInTarget(target), csrf.value)
  const form = { action: target.action, request: target.request, csrf: csrf.value }
  return pageResponse({
    title: 'Sign in',
    status: options.status,
    body: loginBody(
      form,
      target.purpose,
      options.email,
      options.error,
      html`${providerLinks(ctx, signInTarget(target))}${passkey}`,
    ),
    formTargets: target.formTargets,
    cookies: csrf.cookies,
    // The passkey script only with the passkey button: every other page runs none.
    scripts: passkey.value ? [PASSKEY_SCRIPT_PATH] : [],
  })
}

/** The user who may answer the consent page, if the login cookie names one that fits the target. */
export const currentUser = (ctx: OAuthContext, request: Request, target: InteractionTarget) =>
  loggedInUser(ctx, request, target.orgId)

/**
 * The steps every interaction shares: `login` (e-mail and password), `choose` (one of several
 * organizations' accounts) and `switch` ("use another account"). Null for any other step.
 */
export async function accountStep(
  ctx: OAuthContext,
  request: Request,
  form: Map<string, string>,
  target: InteractionTarget,
): Promise<Response | null> {
  switch (form.get('step')) {
    case 'login': {
      const email = form.get('email') ?? ''
      const outcome = await checkLogin(
        ctx,
        clientAddress(request),
        email,
        form.get('password') ?? '',
        target.orgId,
      )
      switch (outcome.kind) {
        case 'limited':
          return tooManyAttempts(outcome.retryAfter, 'failed sign-ins')
        case 'failed':
          return loginPage(ctx, request, target, {
            email,
            status: 401,
            error: 'That e-mail and password do not match an account. Check both and try again.',
          })
        case 'ok':
          return completeSignIn(ctx, request, outcome.user, 'password', signInTarget(target))
        case 'choose': {
          const csrf = csrfValue(ctx, request)
          const token = ctx.signer.sign(
            'accounts',
            outcome.users.map((u) => u.id),
            ACCOUNTS_TTL_S,
          )
          return pageResponse({
            title: 'Choose an organization',
            body: chooseAccountBody(
              { action: target.action, request: target.request, csrf: csrf.value },
              outcome.users,
              token,
            ),
            formTargets: target.formTargets,
            cookies: csrf.cookies,
          })
        }
      }
      break
    }
    case 'choose': {
      const ids = ctx.signer.verify('accounts', form.get('accounts'))
      const chosen = form.get('account')
      const user =
        chosen && Array.isArray(ids) && ids.includes(chosen) ? await ctx.store.users.byId(chosen) : null
      if (!user || (target.orgId !== null && user.orgId !== target.orgId))
        return loginPage(ctx, request, target, {
          status: 400,
          error: 'That choice has expired. Sign in again.',
        })
      return completeSignIn(ctx, request, user, 'password', signInTarget(target))
    }
    case 'switch':
      return seeOther(target.continueUrl, [logoutCookie(ctx)])
  }
  return null
}
