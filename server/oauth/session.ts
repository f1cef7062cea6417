import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { constantTimeEqual } from '../../shared/crypto.ts'
import type { LoginUser } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { readCookie, setCookie } from './cookies.ts'
import { LOGIN_COOKIE_TTL_S } from './lifetimes.ts'

/**
 * The CSRF value of a page's forms (double submit: the same random value in an HttpOnly,
 * SameSite=Lax cookie and in a hidden field). The cookie is set when the browser has none yet.
 */
export function csrfValue(ctx: OAuthContext, request: Request): { value: string; cookies: string[] } {
  const existing = readCookie(request, ctx.cookies.csrf)
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { value: existing, cookies: [] }
  const value = encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)))
  return { value, cookies: [setCookie(ctx.cookies, ctx.cookies.csrf, value)] }
}

/**
 * A form post is accepted only from this site's own pages: the hidden field must equal the
 * cookie (another site can neither read the cookie nor, being cross-site, have it sent with its
 * POST), and the browser must say the request came from this origin. Fetch metadata
 * (`Sec-Fetch-Site`) decides where the browser sends it; otherwise the Origin header, when
 * present, must be this origin. Under `Referrer-Policy: no-referrer` Chromium sends
 * `Origin: null` even for same-origin forms, so "null" counts only with `Sec-Fetch-Site: same-origin`.
 */
export function csrfOk(ctx: OAuthContext, request: Request, form: Map<string, string>): boolean {
  const site = request.headers.get('sec-fetch-site')
  const origin = request.headers.get('origin')
  const ownOrigin = origin === new URL(ctx.issuer).origin || origin === new URL(request.url).origin
  if (site !== null && site !== 'same-origin') return false
  if (origin !== null && !ownOrigin && !(origin === 'null' && site === 'same-origin')) return false
  const cookie = readCookie(request, ctx.cookies.csrf)
  const field = form.get('csrf')
  if (!cookie || !field) return false
  return constantTimeEqual(Buffer.from(cookie), Buffer.from(field))
}

/** The signed login cookie: who logged in, for LOGIN_COOKIE_TTL_S. No server-side session exists. */
export function loginCookie(ctx: OAuthContext, userId: string): string {
  const value = ctx.signer.sign('login', { uid: userId }, LOGIN_COOKIE_TTL_S)
  return setCookie(ctx.cookies, ctx.cookies.login, value, LOGIN_COOKIE_TTL_S)
}

export function logoutCookie(ctx: OAuthContext): string {
  return setCookie(ctx.cookies, ctx.cookies.login, '', 0)
}

/**
 * The user the login cookie names, if it is valid, the user still exists, and (for a client
 * registered to one organization) belongs to `orgId`.
 */
export async function loggedInUser(
  ctx: OAuthContext,
  request: Request,
  orgId: string | null,
): Promise<LoginUser | null> {
  const data = ctx.signer.verify('login', readCookie(request, ctx.cookies.login))
  if (typeof data !== 'object' || data === null) return null
  const uid = (data as { uid?: unknown }).uid
  if (typeof uid !== 'string') return null
  const user = await ctx.store.users.byId(uid)
  if (!user || (orgId !== null && user.orgId !== orgId)) return null
  return user
}
