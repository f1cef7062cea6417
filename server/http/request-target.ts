import { type ApiError, badRequest } from '../../shared/errors.ts'

/**
 * The target URI of a request (RFC 9112 §3.3) as Bun hands it over. Bun builds `request.url`
 * from the Host header: an HTTP/1.0 request without Host, or any request with an empty Host,
 * arrives with the bare path (`/healthz`), and so does one whose Host is not a host at all
 * (`a b`, `a/b`); a Host with a bad port (`a:b`, `a:99999`) arrives as a URL that does not parse.
 * Repeated Host lines arrive joined by ", " (`a, b`). Bun answers an HTTP/1.1 request with no
 * Host itself, with a bare 400 (docs/operations.md, "Malformed requests").
 */
interface RequestTarget {
  /** The request to route: the one given, or a copy whose URL is complete. */
  request: Request
  url: URL
}

const hostProblem = (message: string): ApiError =>
  badRequest(`The Host header ${message}.`, [{ field: 'Host', message }])

/**
 * The request's target URI, or a 400 for a Host a server must refuse: more than one Host line or
 * a Host that is not a host (RFC 9112 §3.2). Without a Host (HTTP/1.0 needs none) or with an
 * empty one the authority is this server's own (`origin`, the base URL): it serves one.
 */
export function requestTarget(request: Request, origin: string): RequestTarget {
  const host = request.headers.get('host')
  // A reg-name may hold a comma (RFC 3986 §3.2.2), but no DNS name does, and a recipient may
  // join repeated lines with commas (RFC 9110 §5.3): a comma cannot be told from two lines.
  if (host?.includes(',')) throw hostProblem('appears more than once')
  const url = URL.parse(request.url)
  if (url !== null) return { request, url }
  if (host) throw hostProblem('is not a valid host')
  const own = URL.parse(request.url, origin)
  if (own === null) throw badRequest('The request target is not a path.')
  return { request: new Request(own.href, request), url: own }
}

/** The path of a target that may not parse (for the access log): no scheme, host or query. */
export function rawPath(target: string): string {
  return /^(?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?([^?#]*)/i.exec(target)?.[1] || '/'
}
