import {
  type ApiError,
  badRequest,
  payloadTooLarge,
  requestTimeout,
  uriTooLong,
} from '../../shared/errors.ts'

/** Largest request body, in bytes (docs/operations.md, "Size limits"). */
export const MAX_BODY_BYTES = 1024 * 1024
/** Longest request target (path and query string), in characters. */
export const MAX_URL_LENGTH = 8 * 1024
/** Deepest nesting of arrays and objects in a JSON body. */
export const MAX_JSON_DEPTH = 32
/**
 * Longest pause while a request body is read before it is 408 (docs/api.md, "Broken request
 * bodies"). Under Bun's own idle timeout (10 s, checked every few seconds), which would close the
 * connection without an answer.
 */
const BODY_IDLE_TIMEOUT_MS = 5_000

function tooLarge(): ApiError {
  return payloadTooLarge(`A request body may be at most ${MAX_BODY_BYTES} bytes (1 MiB).`, [
    { field: 'body', message: `is larger than ${MAX_BODY_BYTES} bytes` },
  ])
}

/** RFC 9110 §15.5.9: after a 408 the connection is in no known state; the server closes it. */
const CLOSE = { Connection: 'close' }

function stalled(idleMs: number): ApiError {
  return requestTimeout(`The request body stopped arriving: nothing came for ${idleMs / 1000} s.`, {
    details: [{ field: 'body', message: `no byte arrived for ${idleMs} ms` }],
    headers: CLOSE,
  })
}

function endedEarly(size: number, expected: number | null): ApiError {
  return badRequest(
    'The request body ended early: the connection closed, or its chunked framing broke, before the whole body arrived.',
    {
      details: [
        {
          field: 'body',
          message:
            expected === null
              ? `ended after ${size} bytes, before its last chunk`
              : `ended after ${size} of the ${expected} bytes its Content-Length announced`,
        },
      ],
      headers: CLOSE,
    },
  )
}

/** 414 for a request target longer than MAX_URL_LENGTH (RFC 9110 §15.5.15). */
export function checkUrlLength(url: URL): void {
  const length = url.pathname.length + url.search.length
  if (length <= MAX_URL_LENGTH) return
  throw uriTooLong(`The request target may be at most ${MAX_URL_LENGTH} characters.`, [
    { field: 'url', message: `is ${length} characters long` },
  ])
}

/**
 * The request with its body guarded. 413 at once for a Content-Length over MAX_BODY_BYTES.
 * Otherwise the body is read, when a handler asks for it (after authentication, so a request
 * without a token is 401 whatever its body), through a stream that turns what can go wrong on the
 * way into the contract's errors:
 *
 * - 413 past MAX_BODY_BYTES (a chunked body has no length to check beforehand);
 * - 408 when nothing arrives for `idleMs` (the connection is then closed);
 * - 400 when the body ends early: the connection closes or half-closes before the whole body
 *   arrived, or chunked framing is malformed (Bun reports both as a closed connection).
 */
export function limitBody(request: Request, idleMs = BODY_IDLE_TIMEOUT_MS): Request {
  const length = request.headers.get('content-length')
  if (length !== null && Number(length) > MAX_BODY_BYTES) throw tooLarge()
  if (request.body === null) return request
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: guardedStream(request.body, length === null ? null : Number(length), idleMs),
    signal: request.signal,
    // Fetch requires it for a stream body; Bun's Request type does not list it.
    duplex: 'half',
  } as RequestInit)
}

function guardedStream(
  source: ReadableStream<Uint8Array>,
  expected: number | null,
  idleMs: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  let size = 0
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: ApiError) => {
    void reader.cancel().catch(() => {})
    controller.error(error)
  }
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<'stalled'>((resolve) => {
        timer = setTimeout(() => resolve('stalled'), idleMs)
      })
      // Bun fails the read when the connection closes, half-closes or breaks chunked framing.
      const chunk = await Promise.race([reader.read(), timeout]).catch(() => 'broken' as const)
      clearTimeout(timer)
      if (chunk === 'broken') return fail(controller, endedEarly(size, expected))
      if (chunk === 'stalled') return fail(controller, stalled(idleMs))
      if (chunk.done) {
        if (expected !== null && size < expected) return fail(controller, endedEarly(size, expected))
        return controller.close()
      }
      size += chunk.value.byteLength
      if (size > MAX_BODY_BYTES) return fail(controller, tooLarge())
      controller.enqueue(chunk.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}
