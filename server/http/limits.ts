import { ApiError, badRequest } from '../../shared/errors.ts'

/** Largest request body, in bytes (docs/operations.md, "Size limits"). */
export const MAX_BODY_BYTES = 1024 * 1024
/** Longest request target (path and query string), in characters. */
export const MAX_URL_LENGTH = 8 * 1024
/** Deepest nesting of arrays and objects in a JSON body. */
export const MAX_JSON_DEPTH = 32

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `A request body may be at most ${MAX_BODY_BYTES} bytes (1 MiB).`, [
    { field: 'body', message: `is larger than ${MAX_BODY_BYTES} bytes` },
  ])
}

/** 414 for a request target longer than MAX_URL_LENGTH (RFC 9110 §15.5.15). */
export function checkUrlLength(url: URL): void {
  const length = url.pathname.length + url.search.length
  if (length <= MAX_URL_LENGTH) return
  throw new ApiError('URI_TOO_LONG', `The request target may be at most ${MAX_URL_LENGTH} characters.`, [
    { field: 'url', message: `is ${length} characters long` },
  ])
}

/**
 * 413 for a body over MAX_BODY_BYTES, checked before anything reads it: by its Content-Length
 * when it has one, else (chunked) by reading at most MAX_BODY_BYTES + 1 bytes, which are then
 * handed on in a request of their own.
 */
export function limitBody(request: Request): Request | Promise<Request> {
  const length = request.headers.get('content-length')
  if (length !== null) {
    if (Number(length) > MAX_BODY_BYTES) throw tooLarge()
    return request
  }
  if (request.body === null) return request
  return readLimited(request, request.body)
}

/** A chunked body, read up to its limit, in a request of its own. */
async function readLimited(request: Request, stream: ReadableStream<Uint8Array>): Promise<Request> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  const body = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    body.set(chunk, at)
    at += chunk.byteLength
  }
  const headers = new Headers(request.headers)
  headers.delete('transfer-encoding')
  headers.set('content-length', String(size))
  return new Request(request.url, { method: request.method, headers, body })
}

/**
 * 400 for JSON nested deeper than MAX_JSON_DEPTH, found by a scan of the text before
 * `JSON.parse` builds anything (deep nesting costs stack, and no resource needs it).
 */
export function checkJsonDepth(text: string): void {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      depth++
      if (depth > MAX_JSON_DEPTH)
        throw badRequest(`JSON bodies may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`, [
          { field: 'body', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` },
        ])
    } else if (c === 93 || c === 125) depth--
  }
}
