/** Ids a client or a proxy may hand in; anything else is replaced, never echoed. */
const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/

/** The request's `X-Request-Id` when it is acceptable, else a fresh UUID (122 random bits, made natively). */
export function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id')
  if (given !== null && ACCEPTED.test(given)) return given
  return crypto.randomUUID()
}
