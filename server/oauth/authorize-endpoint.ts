import type { Schema } from '../../shared/schema/schema.ts'
import { roleScopes } from '../auth/roles.ts'
import { CONSOLE_CLIENT_ID } from '../store/types.ts'
import {
  type AuthorizationRequest,
  AuthorizationRequestError,
  authorizationResponseUrl,
  parseAuthorizationRequest,
} from './authorization-request.ts'
import type { OAuthContext } from './context.ts'
import { OAuthError } from './errors.ts'
import { readForm } from './form.ts'
import {
  accountStep,
  currentUser,
  failurePage,
  type InteractionTarget,
  loginPage,
  messagePage,
  readSignedFlow,
} from './interaction.ts'
import { AUTHORIZATION_CODE_TTL_S, INTERACTION_TTL_S } from './lifetimes.ts'
import { forbiddenForm } from './page-handler.ts'
import { html } from './pages/html.ts'
import { pageResponse, seeOther } from './pages/layout.ts'
import { consentBody } from './pages/pages.ts'
import { randomToken } from './random.ts'
import { formActionSource } from './redirect-uri.ts'
import { intersectScope } from './scopes.ts'
import { enrolFirst } from './second-factor-policy.ts'
import { csrfOk, csrfValue } from './session.ts'

function target(ctx: OAuthContext, query: string, req: AuthorizationRequest): InteractionTarget {
  return {
    action: '/oauth/authorize',
    request: ctx.signer.sign('authorize', { q: query }, INTERACTION_TTL_S),
    continueUrl: `/oauth/authorize?${query}`,
    orgId: req.client.orgId,
    purpose: html`<strong>${req.client.name}</strong> wants to access your account. Sign in to continue.`,
    formTargets: [formActionSource(req.redirectUri)],
  }
}

/** Where an invalid request ends: an error page, or (only for a verified redirect URI) back at the client. */
function requestErrorResponse(ctx: OAuthContext, error: AuthorizationRequestError): Response {
  if (!error.redirect)
    return messagePage(
      400,
      'This request cannot be completed',
      error.message,
      'Go back to the application and try again, or tell its developers.',
    )
  const { uri, state, error: oauth } = error.redirect
  return seeOther(
    authorizationResponseUrl(uri, ctx.issuer, {
      error: oauth.error,
      error_description: oauth.description,
      state,
    }),
  )
}

/** The scopes this user can grant this client: asked ∩ client's ∩ the role's. */
function grantable(
  schema: Schema,
  req: AuthorizationRequest,
  role: string,
): { scopes: string[]; withheld: string[] } {
  const scopes = intersectScope(schema, req.scope, req.client.scope, roleScopes(schema, role))
  const withheld = intersectScope(schema, req.scope, req.client.scope).filter((s) => !scopes.includes(s))
  return { scopes, withheld }
}

const roleDenied = (ctx: OAuthContext, req: AuthorizationRequest, role: string) =>
  seeOther(
    authorizationResponseUrl(req.redirectUri, ctx.issuer, {
      error: 'access_denied',
      error_description: `The user's role (${role}) allows none of the requested scopes.`,
      state: req.state,
    }),
  )

/** RFC 6749 §4.1.2: the code, bound to the client, user, redirect URI and PKCE challenge, sent back. */
async function issueCode(
  ctx: OAuthContext,
  req: AuthorizationRequest,
  user: { id: string; orgId: string },
  scopes: string[],
): Promise<Response> {
  const code = randomToken('ac')
  const now = ctx.clock()
  await ctx.store.codes.insert(
    code,
    {
      orgId: user.orgId,
      clientId: req.client.id,
      userId: user.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scope: scopes,
      expiresAt: now + AUTHORIZATION_CODE_TTL_S * 1000,
    },
    now,
  )
  return seeOther(authorizationResponseUrl(req.redirectUri, ctx.issuer, { code, state: req.state }))
}

/** GET: the login page, or, with a valid login cookie, the consent page (none for the console: its code at once). */
async function show(ctx: OAuthContext, request: Request, query: string): Promise<Response> {
  const req = await parseAuthorizationRequest(ctx.schema, ctx.store, new URLSearchParams(query))
  const interaction = target(ctx, query, req)
  const user = await currentUser(ctx, request, interaction)
  if (!user) return loginPage(ctx, request, interaction)
  // Before any consent page or code, the console's included.
  const enrol = await enrolFirst(ctx, user, interaction.continueUrl)
  if (enrol) return enrol
  const { scopes, withheld } = grantable(ctx.schema, req, user.role)
  if (scopes.length === 0) return roleDenied(ctx, req, user.role)
  // The console is the service's own page, at the redirect URI registered for it at start: the
  // user who signs in there has chosen this service, so there is no other party to consent to.
  if (req.client.id === CONSOLE_CLIENT_ID && request.method === 'GET')
    return issueCode(ctx, req, user, scopes)
  const csrf = csrfValue(ctx, request)
  const form = {
    action: interaction.action,
    request: ctx.signer.sign('authorize', { q: query, uid: user.id }, INTERACTION_TTL_S),
    csrf: csrf.value,
  }
  return pageResponse({
    title: 'Allow access?',
    body: consentBody(form, {
      clientName: req.client.name,
      user,
      scopes,
      withheld,
      returnTo: req.redirectUri,
    }),
    formTargets: [formActionSource(req.redirectUri)],
    cookies: csrf.cookies,
  })
}

/** POST: the login, account and consent forms. */
async function submit(ctx: OAuthContext, request: Request): Promise<Response> {
  const form = await readForm(request)
  if (!csrfOk(ctx, request, form)) return forbiddenForm()
  const signed = readSignedFlow(ctx, 'authorize', 'q', form.get('request'))
  if (!signed) return messagePage(400, 'This page has expired', 'Go back to the application and start again.')
  const req = await parseAuthorizationRequest(ctx.schema, ctx.store, new URLSearchParams(signed.flow))
  const interaction = target(ctx, signed.flow, req)
  const handled = await accountStep(ctx, request, form, interaction)
  if (handled) return handled
  if (form.get('step') !== 'consent') return messagePage(400, 'Unknown step', 'Go back and try again.')
  const user = await currentUser(ctx, request, interaction)
  // The answer counts only from the user the consent page was shown to, still logged in.
  if (!user || user.id !== signed.uid) return seeOther(interaction.continueUrl)
  // A consent form shown before the policy changed (or forged) counts no more than the page would.
  const enrol = await enrolFirst(ctx, user, interaction.continueUrl)
  if (enrol) return enrol
  const decision = form.get('decision')
  if (decision !== 'allow') {
    return seeOther(
      authorizationResponseUrl(req.redirectUri, ctx.issuer, {
        error: 'access_denied',
        error_description: 'The user denied the request.',
        state: req.state,
      }),
    )
  }
  const { scopes } = grantable(ctx.schema, req, user.role)
  if (scopes.length === 0) return roleDenied(ctx, req, user.role)
  return issueCode(ctx, req, user, scopes)
}

/** GET and POST /oauth/authorize (RFC 6749 §3.1, §4.1). */
export async function authorizeEndpoint(ctx: OAuthContext, request: Request): Promise<Response> {
  try {
    if (request.method === 'GET' || request.method === 'HEAD')
      return await show(ctx, request, new URL(request.url).search.slice(1))
    if (request.method === 'POST') return await submit(ctx, request)
    const response = messagePage(405, 'Method not allowed', 'This page answers GET and POST only.')
    response.headers.set('Allow', 'GET, HEAD, POST')
    return response
  } catch (error) {
    if (error instanceof AuthorizationRequestError) return requestErrorResponse(ctx, error)
    if (error instanceof OAuthError)
      return messagePage(400, 'This request cannot be completed', error.description)
    return failurePage(ctx, error)
  }
}
