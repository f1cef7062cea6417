import { isDatabaseUnavailable } from '../store/availability.ts'

/**
 * RFC 6749 §5.2 error codes (and RFC 8628 §3.5 for the device flow); `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1) answers a client id locked out by failed authentications.
 */
type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'temporarily_unavailable'

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
    this.name = 'OAuthError'
  }
}

/**
 * A request that failed because the database cannot be reached (server/store/availability.ts):
 * `temporarily_unavailable`, RFC 6749's "try again later" (§4.1.2.1), as a 503 with Retry-After.
 * Undefined for any other error.
 */
export function unavailableOAuthError(error: unknown): OAuthError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined
  const description = 'The server cannot reach its database; try again in a moment.'
  return new OAuthError('temporarily_unavailable', description, 503, error.headers)
}

/** Token responses and their errors are never cached (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

export function oauthErrorResponse(error: OAuthError): Response {
  return new Response(JSON.stringify({ error: error.error, error_description: error.description }), {
    status: error.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...NO_STORE, ...error.headers },
  })
}
