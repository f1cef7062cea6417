import type { Principal, TokenVerifier } from '../auth/tokens.ts'
import type { ServerMetrics } from '../metrics/server-metrics.ts'
import type { Logger } from '../ops/logger.ts'
import { withRequestId } from '../ops/logger.ts'
import { addDeprecationHeaders, versionOfPath } from '../versions/versions.ts'
import { clientAddress, rememberClientAddress } from './client-address.ts'
import { conditionalAnswer } from './conditional.ts'
import { withCors } from './cors.ts'
import { checkUrlLength, limitBody } from './limits.ts'
import { addressKey, principalKey, type RateState, type RequestQuota, rateLimited } from './rate-limit.ts'
import { requestIdOf } from './request-id.ts'
import { type EdgeState, setEdgeState } from './request-state.ts'
import { rawPath, requestTarget } from './request-target.ts'
import type { ResponseCache } from './response-cache.ts'
import { errorResponse, noContent } from './responses.ts'
import { routable } from './routable.ts'
import { listFormatOf } from './tabular.ts'

interface EdgeOptions {
  /** The router: every path of the service. */
  handle: (request: Request) => Response | Promise<Response>
  logger: Logger
  clock: () => number
  verifier: TokenVerifier
  /** This server's origin (the base URL): the authority of a request that names none (HTTP/1.0). */
  origin: string
  /** Undefined when rate limits are off (`--rate-limit 0`). */
  limiter?: RequestQuota
  /** Answers of record reads (server/http/response-cache.ts); undefined under `serve --no-cache`. */
  cache?: ResponseCache
  corsOrigins: readonly string[]
  /** Longest pause while a request body arrives before it is 408 (server/http/limits.ts). */
  bodyIdleTimeoutMs?: number
  /** Counts every answer, and answers `/metrics` to a reader allowed, before any rate limit. */
  metrics?: ServerMetrics
}

interface Edge {
  fetch: (request: Request) => Promise<Response>
  /** Requests being handled now (shutdown waits for them). */
  inFlight: () => number
}

/** Probes of load balancers and orchestrators: never throttled, though they carry the headers. */
export const UNMETERED = new Set(['/healthz', '/readyz'])
/** HTML pages a person navigates to: never called cross-origin, so no CORS headers. */
const PAGES = new Set(['/oauth/authorize', '/device'])
/** OAuth endpoints a browser app may call cross-origin (POST only); they answer preflights here. */
const OAUTH_POST = new Set([
  '/oauth/token',
  '/oauth/revoke',
  '/oauth/introspect',
  '/oauth/device_authorization',
])

/** An HTTP date changes once a second; formatting it once a second is enough. */
let dateCache = { second: -1, text: '' }
function httpDate(now: number): string {
  const second = Math.floor(now / 1000)
  if (second !== dateCache.second) dateCache = { second, text: new Date(second * 1000).toUTCString() }
  return dateCache.text
}

/** The path as logged: stored-result tokens are capabilities and are masked; no query string ever. */
function loggedPath(path: string): string {
  const masked = path.replace(/(\/queries\/[^/]+\/results\/)[^/]+/, '$1[redacted]')
  return masked.length > 512 ? `${masked.slice(0, 512)}…` : masked
}

/** Bodies streamed as they are made (subscriptions): their size is unknown when the line is written. */
const STREAMED = /^(?:text\/event-stream|multipart\/mixed)/i

/**
 * The size of the body as sent, for the access log: 0 when none is sent (HEAD, 204, 304), null
 * for a stream. JSON answers state their Content-Length (server/http/responses.ts); any other
 * body (Yoga's, the pages', a replayed write's) is measured on a clone.
 */
function sentBytes(method: string, response: Response): number | null | Promise<number> {
  const status = response.status
  if (method === 'HEAD' || status === 204 || status === 304) return 0
  const length = response.headers.get('content-length')
  if (length !== null) return Number(length)
  const type = response.headers.get('content-type')
  if (type !== null && STREAMED.test(type)) return null
  return response
    .clone()
    .blob()
    .then((blob) => blob.size)
}

/**
 * The rate-limit key: the client and user of a token this server issued (whichever of their
 * tokens it is), else the client address.
 */
async function rateKey(verifier: TokenVerifier, request: Request): Promise<string> {
  let principal = verifier.authentic(request.headers.get('authorization'))
  if (principal instanceof Promise) principal = await principal
  if (principal) return principalKey(principal)
  return addressKey(clientAddress(request))
}

/**
 * The principal of a bearer token seen before, as it stands now (not revoked, scopes capped by the
 * role): at once while that is cached, else the pending look-up, which the route awaits instead of
 * starting another; undefined for a token not seen before (the route verifies and answers it).
 */
function knownPrincipal(
  verifier: TokenVerifier,
  request: Request,
): Principal | Promise<Principal> | undefined {
  const header = request.headers.get('authorization')
  if (header === null) return undefined
  try {
    const principal = verifier.verifyHeader(header)
    // A failure is the route's to answer; a request no route takes leaves it unobserved.
    if (principal instanceof Promise) principal.catch(() => {})
    return principal
  } catch {
    return undefined
  }
}

/**
 * A kept answer to this read, while the organization has not changed since it was read. The
 * stamp is only asked when an entry exists (on PostgreSQL it is a read); on a miss the route
 * reuses it, read before the data as it must be.
 */
async function fromCache(
  cache: ResponseCache,
  principal: Principal,
  request: Request,
  url: URL,
  state: EdgeState,
) {
  // An Accept no list answers is the route's to refuse (406); other reads answer JSON and keep it so.
  const format = listFormatOf(request.headers.get('accept'))
  if (format === null) return undefined
  const key = cache.keyOf(principal, url, format)
  if (!cache.has(key)) return undefined
  let stamp = cache.stamp(principal.orgId)
  if (stamp instanceof Promise) stamp = await stamp
  const answer = cache.get(key, stamp)
  if (answer === undefined) state.cached = { key, stamp }
  return answer
}

/**
 * The edge every request walks through before any route (docs/operations.md): request id, rate
 * limit, URL and body size limits, then the router; and on the way out, the headers every
 * response carries (request id, nosniff, RateLimit, a deprecated version's headers, CORS) and
 * one access-log line.
 */
export function createEdge(options: EdgeOptions): Edge {
  const { handle, logger, clock, verifier, limiter, cache, metrics } = options
  let inFlight = 0

  const run = async (request: Request, url: URL, rate: { state?: RateState }): Promise<Response> => {
    try {
      // An allowed scraper is never throttled: it must see the server most when it is busiest.
      const scraped = metrics?.scrape(request, url.pathname)
      if (scraped) return await scraped
      if (limiter) {
        const key = await rateKey(verifier, request)
        const metered = !UNMETERED.has(url.pathname)
        rate.state = await (metered ? limiter.take(key) : limiter.peek(key))
        if (metered && !rate.state.allowed) {
          metrics?.limited()
          throw rateLimited(rate.state)
        }
      }
      checkUrlLength(url)
      const limited = routable(limitBody(request, options.bodyIdleTimeoutMs))
      if (limited !== request) rememberClientAddress(limited, clientAddress(request))
      if (request.method === 'OPTIONS' && OAUTH_POST.has(url.pathname))
        return noContent({ Allow: 'POST, OPTIONS' })
      const state: EdgeState = { url }
      if (url.pathname.startsWith('/api/')) {
        const principal = knownPrincipal(verifier, request)
        if (principal instanceof Promise) state.verifying = principal
        else if (principal !== undefined) {
          state.principal = principal
          const cached = cache && (request.method === 'GET' || request.method === 'HEAD')
          if (cached) {
            const answer = await fromCache(cache, principal, request, url, state)
            if (answer !== undefined) return conditionalAnswer(request, answer)
          }
        }
      }
      setEdgeState(limited, state)
      return await handle(limited)
    } catch (error) {
      return errorResponse(error, (e) => logger.error(e))
    }
  }

  const finish = (request: Request, url: URL, response: Response, requestId: string, rate?: RateState) => {
    const headers = response.headers
    headers.set('X-Request-Id', requestId)
    headers.set('X-Content-Type-Options', 'nosniff')
    // RFC 9110 §6.6.1: an origin server sends Date; Bun.serve adds it to GET answers but not to HEAD.
    if (!headers.has('Date')) headers.set('Date', httpDate(clock()))
    // Elysia answers HEAD with the length of the body it got, 0 for a 304; RFC 9110 §8.6 allows
    // only the 200's length there, so a 304 carries none, for GET and HEAD alike.
    if (response.status === 304) headers.delete('Content-Length')
    if (limiter && rate) {
      headers.set('RateLimit-Policy', limiter.policy)
      headers.set('RateLimit', limiter.remainder(rate))
    }
    const version = versionOfPath(url.pathname)
    if (version?.status === 'deprecated') addDeprecationHeaders(headers, version, url.pathname)
    return PAGES.has(url.pathname) ? response : withCors(options.corsOrigins, request, response)
  }

  return {
    inFlight: () => inFlight,
    fetch: (request) => {
      const started = performance.now()
      const requestId = requestIdOf(request)
      return withRequestId(requestId, async () => {
        inFlight += 1
        const rate: { state?: RateState } = {}
        let path = rawPath(request.url)
        let response: Response
        try {
          const target = requestTarget(request, options.origin)
          if (target.request !== request) rememberClientAddress(target.request, clientAddress(request))
          path = target.url.pathname
          const answer = await run(target.request, target.url, rate)
          response = finish(target.request, target.url, answer, requestId, rate.state)
        } catch (error) {
          // A Host no server may accept (400), or a failure outside run's own catch: still the
          // contract's body with the request id, never Bun's error page.
          response = errorResponse(error, (e) => logger.error(e))
          response.headers.set('X-Request-Id', requestId)
          response.headers.set('X-Content-Type-Options', 'nosniff')
        } finally {
          inFlight -= 1
        }
        metrics?.answered(request.method, path, response.status, (performance.now() - started) / 1000)
        const level = response.status >= 500 ? 'error' : 'info'
        if (logger.enabled(level)) {
          let bytes = sentBytes(request.method, response)
          if (bytes instanceof Promise) bytes = await bytes
          logger.log(level, 'request', {
            method: request.method,
            path: loggedPath(path),
            status: response.status,
            durationMs: Math.round((performance.now() - started) * 100) / 100,
            bytes,
            client: clientAddress(request),
            ...(logger.enabled('debug') ? { userAgent: request.headers.get('user-agent') } : {}),
          })
        }
        return response
      })
    },
  }
}
