import { ApiError, type ErrorBody } from '../../shared/errors.ts'

export const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * A JSON response. It states its Content-Length, which Bun would otherwise work out only while
 * sending: the access log reads it there (server/http/edge.ts).
 */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body)
  return new Response(text, {
    status,
    headers: { 'Content-Type': JSON_TYPE, 'Content-Length': String(Buffer.byteLength(text)), ...headers },
  })
}

export function noContent(headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 204, headers })
}

/** The contract's error body for any thrown value; anything not an ApiError is a 500 that hides its cause. */
export function errorResponse(error: unknown, log: (error: unknown) => void = () => {}): Response {
  if (error instanceof ApiError) return json(error.status, error.toBody(), error.headers)
  log(error)
  const body: ErrorBody = {
    error: { code: 'INTERNAL', message: 'The server could not complete the request.', details: [] },
  }
  return json(500, body)
}
