/** Reads one cookie from the Cookie header (RFC 6265 §5.4). */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

export interface CookieNames {
  login: string
  csrf: string
  /** A sign-in that waits for its second factor (server/oauth/pending-sign-in.ts). */
  pending: string
  secure: boolean
}

/**
 * Over https the cookies take the `__Host-` prefix (Secure, Path=/, no Domain: no sibling host
 * can set or read them); plain http (a loopback development server) cannot use it.
 */
export function cookieNames(baseUrl: string): CookieNames {
  const secure = baseUrl.startsWith('https:')
  const prefix = secure ? '__Host-' : ''
  return {
    login: `${prefix}oauth_login`,
    csrf: `${prefix}oauth_csrf`,
    pending: `${prefix}oauth_pending`,
    secure,
  }
}

/**
 * HttpOnly (no script reads it) and SameSite=Lax: sent on the top-level navigation from the
 * client's site to /oauth/authorize, never on a cross-site POST. `maxAge` 0 deletes it.
 */
export function setCookie(names: CookieNames, name: string, value: string, maxAge?: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax']
  if (names.secure) parts.push('Secure')
  if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`)
  return parts.join('; ')
}
