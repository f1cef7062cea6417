import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'

/** Ids a client or a proxy may hand in; anything else is replaced, never echoed. */
const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/

/** The request's `X-Request-Id` when it is acceptable, else a fresh one (128 random bits). */
export function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id')
  if (given !== null && ACCEPTED.test(given)) return given
  return `req_${encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(16)))}`
}
