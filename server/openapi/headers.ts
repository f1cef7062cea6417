import { ACCEPT_QUERY } from '../query/media.ts'
import type { JsonObject } from './json.ts'

const text = (description: string, required: boolean, extra: JsonObject = {}): JsonObject => ({
  description,
  required,
  schema: { type: 'string', ...extra },
})

/**
 * The response headers the service defines, as components/headers. `required` says the header is
 * on every response that lists it; the response validator (test/openapi/responses.test.ts) holds
 * the server to that, and to sending no header the documents leave out (docs/api.md, "The OpenAPI
 * documents").
 */
export const HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': text('The request id, as sent (when acceptable) or generated', true),
  RateLimit: text(
    'draft-ietf-httpapi-ratelimit-headers: "default";r=<remaining>;t=<seconds to reset>',
    false,
  ),
  'RateLimit-Policy': text(
    'draft-ietf-httpapi-ratelimit-headers: "default";q=<quota>;w=<window seconds>',
    false,
  ),
  Deprecation: text('RFC 9745: @<unix-seconds>;version="v1"', true),
  Sunset: text('RFC 8594: when this version goes away (an HTTP date)', true),
  Link: text(
    'RFC 8288: </api/v2/...>; rel="successor-version", the same resource in the current version',
    true,
  ),
  ETag: text('A strong entity tag of the representation (RFC 9110 §8.8.3)', true, { pattern: '^"[^"]*"$' }),
  'Last-Modified': text(
    "An HTTP date: the record's updatedAt, or the last change to the collection in the organization",
    true,
  ),
  'Accept-Query': text('RFC 10008 §3: the query formats QUERY takes here, a Structured Field list', true, {
    example: ACCEPT_QUERY,
  }),
  Location: text(
    'A path: of the record created (201), or of the stored query (QUERY, GET runs it again)',
    true,
  ),
  'Idempotent-Replayed': text(
    'true when this answer replays the first one for the same Idempotency-Key and body',
    false,
    { enum: ['true'] },
  ),
  'Deleted-Count': {
    description: 'How many records the bulk delete removed',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  Allow: text('The methods this path answers (RFC 9110 §10.2.1)', true, { example: 'GET, HEAD, OPTIONS' }),
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
}

/** Headers every response carries (server/http/edge.ts), and those of a deprecated version's paths. */
export const EDGE_HEADERS = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy']
export const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link']

/** References to component headers, for a response's `headers`. */
export function headerRefs(...names: string[]): Record<string, JsonObject> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
}

/** A header described where it is used: one that is there only sometimes, or only on that response. */
export const inlineHeader = text

/**
 * A list's answer as CSV or NDJSON (`Accept: text/csv`, `application/x-ndjson`; docs/bulk.md):
 * the page's records, with `Link` to the next page and the count standing for `pagination`.
 */
export const TABULAR_CONTENT: Record<string, JsonObject> = {
  'text/csv': {
    schema: {
      type: 'string',
      description:
        'RFC 4180, UTF-8, CRLF: a header row of the presented fields (objects flattened as amount.value), then a row per record',
    },
  },
  'application/x-ndjson': {
    schema: { type: 'string', description: 'One record a line, the JSON of `data`' },
  },
}

/** The headers of a CSV or NDJSON page (JSON pages carry neither: their body has `pagination`). */
export const TABULAR_HEADERS: Record<string, JsonObject> = {
  Link: inlineHeader('RFC 8288: </api/v2/...>; rel="next", the next page of a CSV or NDJSON answer', false),
  'X-Total-Count': {
    description: 'The number of matching records, on a CSV or NDJSON page with include_total=true',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
}
