import { STATUS_CODES } from 'node:http'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../shared/errors.ts'

/** Exit codes (documented in docs/cli.md). */
export const EXIT = { ok: 0, api: 1, usage: 2, network: 3, auth: 4, interrupted: 130 } as const

/** A mistake in how the command was called; exit 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** No usable credentials, or the server refused them; exit 4. */
export class AuthNeeded extends Error {
  override name = 'AuthNeeded'
}

/**
 * An error answer without the contract's error body, as a proxy or load balancer in front of the
 * server sends it (`502 Bad Gateway`); exit 1. No error code is made up for it.
 */
class HttpStatusError extends Error {
  override name = 'HttpStatusError'

  constructor(readonly status: number) {
    super(`the server answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`)
  }
}

/** The server could not be reached, or did not answer in time; exit 3. */
export class NetworkError extends Error {
  override name = 'NetworkError'
}

const isCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code)

/** Rebuilds the server's error from a response body, checking its shape instead of trusting it. */
export function apiErrorFrom(status: number, body: unknown): ApiError | HttpStatusError {
  const error = (body as { error?: unknown } | null)?.error
  if (error && typeof error === 'object') {
    const { code, message, details } = error as Record<string, unknown>
    if (isCode(code) && typeof message === 'string') {
      const list = Array.isArray(details)
        ? details
            .filter((d) => d && typeof d.field === 'string' && typeof d.message === 'string')
            .map((d) => ({ field: d.field as string, message: d.message as string }))
        : []
      // new ApiError: the code is the server's, read from the wire.
      const rebuilt = new ApiError(code, message, { details: list })
      return Object.assign(rebuilt, { status })
    }
  }
  // OAuth endpoints answer RFC 6749 errors.
  const oauth = body as { error?: unknown; error_description?: unknown } | null
  if (oauth && typeof oauth.error === 'string') {
    const code: ErrorCode = status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : 'BAD_REQUEST'
    const description = typeof oauth.error_description === 'string' ? `: ${oauth.error_description}` : ''
    // new ApiError: the code stands for the status the OAuth error came with.
    return Object.assign(new ApiError(code, `${oauth.error}${description}`), { status })
  }
  const code = Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0] as ErrorCode | undefined
  if (code === undefined) return new HttpStatusError(status)
  // new ApiError: the code stands for the status of an answer without an error body.
  return Object.assign(new ApiError(code, `The server answered ${status}.`), { status })
}

/** Exit status for any error a command throws. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage
  if (error instanceof AuthNeeded) return EXIT.auth
  if (error instanceof NetworkError) return EXIT.network
  if (error instanceof ApiError) return error.status === 401 ? EXIT.auth : EXIT.api
  return EXIT.api
}
