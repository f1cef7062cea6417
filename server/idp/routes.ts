/**
 * `GET /login/{key}` sends the person to the provider; `GET /login/{key}/callback` takes them
 * back (docs/oauth.md, "Outside identity providers"). What the callback must check (state, PKCE
 * verifier, nonce, the sign-in target) travels in a signed, HttpOnly cookie, cleared by every
 * callback, so a replayed callback finds none.
 */
import { generateCodeVerifier, generateState } from 'arctic'
import type { AnyElysia } from 'elysia'
import { constantTimeEqual } from '../../shared/crypto.ts'
import type { OAuthContext } from '../oauth/context.ts'
import { readCookie, setCookie } from '../oauth/cookies.ts'
import { failurePage, messagePage } from '../oauth/interaction.ts'
import { INTERACTION_TTL_S } from '../oauth/lifetimes.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { loggedInUser } from '../oauth/session.ts'
import { readSignInTarget, type SignInTarget, signSignInTarget } from '../oauth/sign-in.ts'
import { chooseStep } from './choose.ts'
import type { ActiveProvider } from './context.ts'
import { UpstreamError } from './oidc.ts'
import { linkToUser, signInWith } from './outcome.ts'

/** What the callback needs from the start of the sign-in; `link` is the user linking from /account. */
interface Pending {
  key: string
  state: string
  nonce: string
  verifier: string
  /** The sign-in target, signed as the login page's link carried it (`signSignInTarget`). */
  flow: string
  link?: string
}

const stateCookie = (ctx: OAuthContext) => `${ctx.cookies.secure ? '__Host-' : ''}idp_flow`

const expired = () =>
  messagePage(
    400,
    'Sign-in expired',
    'This sign-in was not started here, or it has expired or been used already. Start again from the sign-in page.',
  )

function unknownProvider(): Response {
  return messagePage(404, 'No such sign-in', 'This server has no sign-in provider by that name.')
}

/** `GET /login/{key}?flow=...` (or `?link=1` from /account): off to the provider. */
async function start(ctx: OAuthContext, request: Request, active: ActiveProvider): Promise<Response> {
  const params = new URL(request.url).searchParams
  let flow = params.get('flow')
  let link: string | undefined
  if (params.get('link') === '1') {
    const user = await loggedInUser(ctx, request, null)
    if (!user) return seeOther('/account')
    flow = signSignInTarget(ctx, { next: '/account', orgId: user.orgId })
    link = user.id
  }
  if (!flow || !readSignInTarget(ctx, flow)) return expired()
  const pending: Pending = {
    key: active.provider.key,
    state: generateState(),
    nonce: generateState(),
    verifier: generateCodeVerifier(),
    flow,
    ...(link ? { link } : {}),
  }
  let url: URL
  try {
    url = await active.upstream.authorizationUrl(pending.state, pending.verifier, pending.nonce)
  } catch (error) {
    return upstreamFailure(ctx, active, error)
  }
  const value = ctx.signer.sign('idp-flow', pending, INTERACTION_TTL_S)
  return seeOther(url.toString(), [setCookie(ctx.cookies, stateCookie(ctx), value, INTERACTION_TTL_S)])
}

function readPending(
  ctx: OAuthContext,
  request: Request,
  key: string,
): (Pending & { target: SignInTarget }) | null {
  const data = ctx.signer.verify('idp-flow', readCookie(request, stateCookie(ctx)))
  if (typeof data !== 'object' || data === null) return null
  // Signed by this server a few minutes ago: its shape is ours; the target is checked once more.
  const pending = data as Pending
  if (pending.key !== key || typeof pending.state !== 'string') return null
  const target = readSignInTarget(ctx, pending.flow)
  return target ? { ...pending, target } : null
}

/** A provider that cannot be reached (503, try later), or whose answer is refused (401). */
function upstreamFailure(ctx: OAuthContext, active: ActiveProvider, error: unknown): Response {
  if (!(error instanceof UpstreamError)) return failurePage(ctx, error)
  ctx.log(new Error(`sign-in with ${active.provider.key}: ${error.message}`))
  if (error.kind === 'unavailable') {
    const response = messagePage(
      503,
      'Try again in a moment',
      `${active.name} cannot be reached right now. Try again in a moment, or sign in another way.`,
    )
    response.headers.set('Retry-After', '30')
    return response
  }
  return messagePage(
    401,
    'Sign-in refused',
    `The answer from ${active.name} could not be accepted, so you are not signed in. Start again from the sign-in page.`,
  )
}

/** `GET /login/{key}/callback`: the provider's answer, checked, then the user it signs in. */
async function callback(ctx: OAuthContext, request: Request, active: ActiveProvider): Promise<Response> {
  const pending = readPending(ctx, request, active.provider.key)
  const clear = setCookie(ctx.cookies, stateCookie(ctx), '', 0)
  const withCleared = (response: Response) => {
    response.headers.append('Set-Cookie', clear)
    return response
  }
  const params = new URL(request.url).searchParams
  const state = params.get('state') ?? ''
  if (!pending || !constantTimeEqual(Buffer.from(state), Buffer.from(pending.state)))
    return withCleared(expired())
  const error = params.get('error')
  if (error !== null)
    return withCleared(
      messagePage(
        error === 'access_denied' ? 401 : 400,
        'Not signed in',
        error === 'access_denied'
          ? `${active.name} did not sign you in (it was cancelled or refused).`
          : `${active.name} could not sign you in. Start again from the sign-in page.`,
      ),
    )
  const code = params.get('code')
  if (!code) return withCleared(expired())
  try {
    const identity = await active.upstream.identity(code, pending.verifier, pending.nonce)
    const response = pending.link
      ? await linkToUser(ctx, request, active, identity, pending.link)
      : await signInWith(ctx, request, active, identity, pending.target)
    return withCleared(response)
  } catch (error) {
    return withCleared(upstreamFailure(ctx, active, error))
  }
}

/** Mounts the sign-in routes of the declared providers (none without `--idp`). */
export function mountIdp(app: AnyElysia, ctx: OAuthContext): void {
  if (ctx.idp.size === 0) return
  const route =
    (step: (ctx: OAuthContext, request: Request, active: ActiveProvider) => Promise<Response>) =>
    // Elysia's context, typed loosely by a route built here; its request is the Request.
    ({ request, params }: { [x: string]: unknown }) => {
      const active = ctx.idp.get(String((params as Record<string, string>).key))
      return active ? step(ctx, request as Request, active) : unknownProvider()
    }
  app.get('/login/:key', route(start))
  app.get('/login/:key/callback', route(callback))
  app.post('/login/:key/choose', route(chooseStep), { parse: 'none' })
}
