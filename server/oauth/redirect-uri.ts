/** RFC 8252 §7.3: native apps may listen on any port of a loopback IP literal. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]'])

/**
 * True when `requested` is one of the client's registered redirect URIs, compared as strings
 * (RFC 9700 §4.1.3: exact matching). The one exception is RFC 8252 §7.3: a registered
 * `http://127.0.0.1/...` or `http://[::1]/...` URI matches the same URI with any port. It does not
 * apply to `localhost` (RFC 8252 §8.3), to https, or to any other host.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true
  let url: URL
  try {
    url = new URL(requested)
  } catch {
    return false
  }
  // The requested string must be the URL's own spelling, so that only the port can differ.
  if (url.href !== requested || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false
  if (url.username !== '' || url.password !== '' || url.hash !== '') return false
  url.port = ''
  return registered.includes(url.href)
}

/** The CSP `form-action` source that lets a form's redirect reach `uri` (its origin, or its scheme). */
export function formActionSource(uri: string): string {
  const url = new URL(uri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol
}
