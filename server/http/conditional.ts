import { entityTag, parseTagList } from './etag.ts'
import { JSON_TYPE } from './responses.ts'

/** API reads depend on the caller's token: caches may keep them only privately, and revalidate. */
export const PRIVATE_CACHING = { 'Cache-Control': 'private, no-cache', Vary: 'Authorization' }

/** HTTP dates of recent timestamps: a collection's last change repeats on every read of it. */
const httpDates = new Map<string, string>()
const HTTP_DATES_KEPT = 1024

function httpDate(iso: string): string {
  let text = httpDates.get(iso)
  if (text === undefined) {
    text = new Date(iso).toUTCString()
    if (httpDates.size >= HTTP_DATES_KEPT) httpDates.clear()
    httpDates.set(iso, text)
  }
  return text
}

/** RFC 9110 §13.1.2: weak comparison, so a `W/` tag from an intermediary still matches. */
function noneMatch(header: string, tag: string): boolean {
  const strip = (t: string) => t.replace(/^W\//, '')
  return parseTagList(header).some((t) => t === '*' || strip(t) === strip(tag))
}

/**
 * A read's answer as the response cache keeps it (server/http/response-cache.ts): the body as sent,
 * its strong ETag, its Last-Modified as an HTTP date, and headers of the route (`Accept-Query`).
 */
export interface Representation {
  text: string
  tag: string
  lastModified: string
  /** Size of `text` in bytes, for Content-Length and the cache's bound. */
  bytes: number
  extra?: Readonly<Record<string, string>>
}

/** Serializes a read's body once: its text, tag and dates, however often it is answered. */
export function representation(
  body: unknown,
  lastModified: string,
  extra?: Readonly<Record<string, string>>,
): Representation {
  return textRepresentation(JSON.stringify(body), lastModified, extra)
}

/**
 * `representation` of a body serialized already (a list as CSV or NDJSON); `extra` carries its
 * `Content-Type` when it is not JSON.
 */
export function textRepresentation(
  text: string,
  lastModified: string,
  extra?: Readonly<Record<string, string>>,
): Representation {
  return {
    text,
    tag: entityTag(text),
    lastModified: httpDate(lastModified),
    bytes: Buffer.byteLength(text),
    extra,
  }
}

/**
 * A 200 JSON response with a strong ETag and Last-Modified, or 304 Not Modified when the
 * request's If-None-Match (or, without it, If-Modified-Since) says the client has it already.
 */
export function conditionalAnswer(request: Request, answer: Representation): Response {
  const headers: Record<string, string> = {
    'Content-Type': JSON_TYPE,
    ETag: answer.tag,
    'Last-Modified': answer.lastModified,
    'Cache-Control': PRIVATE_CACHING['Cache-Control'],
    Vary: PRIVATE_CACHING.Vary,
  }
  const extra = answer.extra
  if (extra !== undefined) for (const name in extra) headers[name] = extra[name]!
  const ifNoneMatch = request.headers.get('if-none-match')
  let notModified = false
  if (ifNoneMatch !== null) notModified = noneMatch(ifNoneMatch, answer.tag)
  else {
    const ifModifiedSince = request.headers.get('if-modified-since')
    if (ifModifiedSince !== null) {
      const since = Date.parse(ifModifiedSince)
      // HTTP dates have whole seconds, as Last-Modified does.
      notModified = !Number.isNaN(since) && Date.parse(answer.lastModified) <= since
    }
  }
  if (notModified) {
    delete headers['Content-Type']
    return new Response(null, { status: 304, headers })
  }
  // Stated for the access log's bytes (server/http/responses.ts, json()).
  headers['Content-Length'] = String(answer.bytes)
  return new Response(answer.text, { status: 200, headers })
}

/** `conditionalAnswer` for a body serialized here. */
export function conditionalJson(
  request: Request,
  body: unknown,
  lastModified: string,
  extra?: Record<string, string>,
): Response {
  return conditionalAnswer(request, representation(body, lastModified, extra))
}
