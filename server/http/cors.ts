/**
 * CORS (WHATWG Fetch §3.2) at the edge, for the origins given by `serve --cors-origin` or
 * `API_CORS_ORIGINS`; none by default, so browsers on other origins get nothing. The API
 * authenticates with bearer tokens, never cookies, so no response says Allow-Credentials, and
 * `*` may be configured to mean any origin.
 */

/** Request headers a cross-origin call may send (beyond the CORS-safelisted ones). */
const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'X-Request-Id',
]

/** Response headers a cross-origin caller may read (beyond the CORS-safelisted ones). */
const CORS_EXPOSE_HEADERS = [
  'Location',
  'Content-Location',
  'Accept-Query',
  'ETag',
  'Last-Modified',
  'Allow',
  'Retry-After',
  'WWW-Authenticate',
  'Deleted-Count',
  'Idempotent-Replayed',
  'Link',
  'Deprecation',
  'Sunset',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
  // A CSV or NDJSON page's count (docs/bulk.md); its next page is in Link.
  'X-Total-Count',
]

/** How long a browser may reuse a preflight's answer, in seconds. */
const CORS_MAX_AGE = 600

/** Allow-Methods for a preflight whose route did not list its methods. */
const ALL_METHODS = 'GET, HEAD, QUERY, POST, PUT, PATCH, DELETE, OPTIONS'

/**
 * The configured origins, each `scheme://host[:port]` as browsers send it in `Origin` (no path,
 * no trailing slash), or `*`. Throws on anything else, naming it.
 */
export function parseCorsOrigins(values: Iterable<string>): string[] {
  const origins: string[] = []
  for (const raw of values) {
    const value = raw.trim()
    if (value === '') continue
    if (value !== '*') {
      const url = URL.canParse(value) ? new URL(value) : undefined
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value)
        throw new Error(`--cors-origin ${value} is not an origin like https://app.example.com`)
    }
    if (!origins.includes(value)) origins.push(value)
  }
  return origins
}

function appendVary(headers: Headers, name: string) {
  const vary = headers.get('vary')
  const names = vary ? vary.split(',').map((v) => v.trim().toLowerCase()) : []
  if (!names.includes(name.toLowerCase())) headers.set('Vary', vary ? `${vary}, ${name}` : name)
}

/**
 * Adds the CORS headers to a response for an allowed `Origin`. A preflight (OPTIONS with
 * Access-Control-Request-Method) that its route answered with 2xx also gets the methods (the
 * route's `Allow`, so QUERY appears exactly where it is supported), the allowed headers and
 * Max-Age; a preflight from another origin gets no CORS headers, so the browser stops there.
 */
export function withCors(origins: readonly string[], request: Request, response: Response): Response {
  if (origins.length === 0) return response
  const anyOrigin = origins.includes('*')
  // The answer depends on Origin whenever specific origins are configured.
  if (!anyOrigin) appendVary(response.headers, 'Origin')
  const origin = request.headers.get('origin')
  if (origin === null || !(anyOrigin || origins.includes(origin))) return response
  const headers = response.headers
  headers.set('Access-Control-Allow-Origin', anyOrigin ? '*' : origin)
  headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS.join(', '))
  const preflight = request.method === 'OPTIONS' && request.headers.has('access-control-request-method')
  if (preflight && response.status >= 200 && response.status < 300) {
    headers.set('Access-Control-Allow-Methods', headers.get('allow') ?? ALL_METHODS)
    headers.set('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS.join(', '))
    headers.set('Access-Control-Max-Age', String(CORS_MAX_AGE))
  }
  return response
}
