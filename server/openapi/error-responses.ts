import { ERROR_STATUS } from '../../shared/errors.ts'
import { HEADERS, headerRefs, inlineHeader } from './headers.ts'
import type { JsonObject } from './json.ts'

const CODE_OF = Object.fromEntries(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code]))

/** What each error status means here, beyond its code (docs/api.md). */
const MEANING: Record<number, string> = {
  400: 'a query parameter, header or body that cannot be read; a detail names it',
  401: 'no access token, or one that is not valid (RFC 6750 §3)',
  403: 'the token lacks a scope (insufficient_scope), or the record belongs to another organization',
  404: 'no such record, or an id of the wrong shape',
  405: 'the path does not answer this method; Allow lists those it does. Every path of the version answers so for every method it does not list (QUERY on a record, for one)',
  408: 'the request body stopped arriving for 5 s',
  409: "a unique field is taken, other records still refer to this one, or the record's state does not allow the action; a detail names them",
  412: 'If-Match names an ETag the record no longer has; nothing changed',
  413: 'the request body is larger than 1 MiB (64 KiB for a QUERY), or a CSV or NDJSON create holds more than 1,000 records',
  414: 'the request target (path and query string) is longer than 8,192 characters',
  415: 'the body is not of a media type this operation reads',
  422: 'the body is well-formed but not valid; a detail per field',
  429: 'the rate limit is spent; try again after Retry-After seconds',
  500: 'the server could not complete the request (no details are given)',
  503: 'the service cannot answer now: it is starting, the database cannot be reached, or a QUERY ran out of its time budget; nothing was acknowledged: try again after Retry-After seconds (a write with the same Idempotency-Key happens once)',
}

/**
 * RFC 6585 §5. Bun answers it itself, before the service sees the request: no body and none of the
 * service's headers (docs/operations.md, "Size limits").
 */
const HEADERS_TOO_LARGE: JsonObject = {
  description:
    'Request Header Fields Too Large: the request line and headers together are over 16 KiB; answered by the HTTP server itself, with no body',
}

/** The headers of an error status beyond the edge's. */
function errorHeaders(status: number): Record<string, JsonObject> {
  switch (status) {
    case 401:
      return { 'WWW-Authenticate': inlineHeader('RFC 6750 §3: the Bearer challenge', true) }
    case 403:
      return {
        'WWW-Authenticate': inlineHeader(
          'RFC 6750 §3.1: with error="insufficient_scope" and the scope',
          false,
        ),
      }
    case 405:
      return headerRefs('Allow')
    case 415:
      return { 'Accept-Query': inlineHeader('The query formats, on a QUERY (RFC 10008 §2)', false) }
    case 429:
    case 503:
      return headerRefs('Retry-After')
    default:
      return {}
  }
}

/** A response with the contract's error body, for `status` (431 has none). */
export function errorResponse(status: number): JsonObject {
  if (status === 431) return structuredClone(HEADERS_TOO_LARGE)
  return {
    description: `${CODE_OF[status]}: ${MEANING[status] ?? 'see docs/api.md'}`,
    headers: errorHeaders(status),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

/** References to the error responses of components/responses, by status. */
export const errorRefs = (...statuses: number[]): Record<string, JsonObject> =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]))

/** The statuses of the component responses a set of paths refers to. */
export function referencedErrors(paths: unknown): number[] {
  const statuses = new Set<number>()
  for (const match of JSON.stringify(paths).matchAll(/"#\/components\/responses\/E(\d{3})"/g))
    statuses.add(Number(match[1]))
  return [...statuses].sort()
}

/**
 * The headers every response of the edge carries (`edge`, references to components/headers), as
 * a response of `status` has them: Bun's own 431 has none, and a 503 may come from a server still
 * starting, which answers before its edge, so there they are not required.
 */
export function edgeHeadersOf(status: number, edge: Record<string, JsonObject>): Record<string, JsonObject> {
  if (status === 431) return {}
  if (status !== 503) return edge
  return Object.fromEntries(Object.keys(edge).map((name) => [name, { ...HEADERS[name], required: false }]))
}
