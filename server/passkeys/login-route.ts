import type { OAuthContext } from '../oauth/context.ts'
import { OAuthError } from '../oauth/errors.ts'
import { readForm } from '../oauth/form.ts'
import { failurePage, messagePage } from '../oauth/interaction.ts'
import { forbiddenForm } from '../oauth/page-handler.ts'
import { html } from '../oauth/pages/html.ts'
import { pageResponse } from '../oauth/pages/layout.ts'
import { csrfOk } from '../oauth/session.ts'
import { completeSignIn, readSignInTarget, type SignInTarget } from '../oauth/sign-in.ts'
import { verifyAssertion } from './assertion.ts'
import { readAssertion } from './credential-fields.ts'
import { PasskeyRefused } from './refusal.ts'

/** A refused passkey: the reason, and the way back to the login page (a new challenge there). */
function refusedPage(target: SignInTarget | null, error: PasskeyRefused): Response {
  return pageResponse({
    status: error.problem === 'missing' || error.problem === 'malformed' ? 400 : 401,
    title: 'The passkey was not accepted',
    body: html`<h1>The passkey was not accepted</h1>
<p class="error" role="alert">${error.message}</p>
${target ? html`<p><a href="${target.next}">Back to sign in</a></p>` : html``}`,
  })
}

/**
 * POST /login/passkey: the login page's passkey form. Verifies the assertion (server/passkeys/
 * assertion.ts), finds the passkey's user, who must belong to the target's organization when it
 * names one, and completes the sign-in: a passkey with user verification is both factors at once.
 */
export async function passkeyLoginEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  if (request.method !== 'POST') {
    const response = messagePage(405, 'Method not allowed', 'This address answers POST only.')
    response.headers.set('Allow', 'POST')
    return response
  }
  let target: SignInTarget | null = null
  try {
    const form = await readForm(request)
    if (!csrfOk(ctx, request, form)) return forbiddenForm()
    target = readSignInTarget(ctx, form.get('target'))
    if (!target)
      return messagePage(400, 'This page has expired', 'Go back to the application and start again.')
    const passkey = await verifyAssertion(ctx, readAssertion(form), 'sign-in', null)
    const user = await ctx.store.users.byId(passkey.userId)
    if (!user || (target.orgId !== null && user.orgId !== target.orgId)) throw new PasskeyRefused('account')
    return await completeSignIn(ctx, request, user, 'passkey', target)
  } catch (error) {
    if (error instanceof PasskeyRefused) return refusedPage(target, error)
    if (error instanceof OAuthError)
      return messagePage(400, 'This request cannot be completed', error.description)
    return failurePage(ctx, error)
  }
}
