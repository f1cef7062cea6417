/** RFC 8252 §7.3: native apps may listen on any port of a loopback IP literal. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]'])

/**
 * True when `requested` is one of the client's registered redirect URIs, compared as strings
 * (RFC 9700 §4.1.3: exact matching). The one exception is RFC 8252 §7.3: for a registered
 * `http://127.0.0.1/...` or `http://[::1]/...` URI, with or without a port, the same URI with any
 * port matches; scheme, host, path and query still match exactly. It does not apply to
 * `localhost` (RFC 8252 §8.3), to https, or to any other host.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true
  // The requested string must be the URL's own spelling, so that only the port can differ.
  const wanted = withoutLoopbackPort(requested, { canonical: true })
  if (wanted === undefined) return false
  return registered.some((uri) => withoutLoopbackPort(uri, { canonical: false }) === wanted)
}

/** A loopback http URI with its port removed; undefined for any other URI. */
function withoutLoopbackPort(uri: string, options: { canonical: boolean }): string | undefined {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return undefined
  }
  if (options.canonical && url.href !== uri) return undefined
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined
  if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  url.port = ''
  return url.href
}

/** The CSP `form-action` source that lets a form's redirect reach `uri` (its origin, or its scheme). */
export function formActionSource(uri: string): string {
  const url = new URL(uri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol
}

// A browser sent to one of these runs or shows what the address itself holds.
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'])

/**
 * Why `uri` cannot be registered as a redirect URI, or null when it can: it must be an absolute
 * URI without a fragment (RFC 6749 §3.1.2), with a scheme the browser leaves for (not
 * `javascript:` or `data:`). http to any host is allowed, as `client create` allows it; the
 * authorization request then matches it exactly (`redirectUriMatches`).
 */
export function redirectUriProblem(uri: string): string | null {
  // The authorization request compares the text exactly: what the parser would trim or drop never matches.
  if (/[\s\p{Cc}]/u.test(uri)) return 'must not contain spaces or control characters'
  if (!URL.canParse(uri)) return 'must be an absolute URI'
  if (uri.includes('#')) return 'must not have a fragment (#)'
  if (REFUSED_SCHEMES.has(new URL(uri).protocol))
    return 'must not be a javascript:, data:, vbscript:, file: or blob: URI'
  return null
}
