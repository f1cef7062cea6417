/** What the person at the other end can act on, rather than the runtime's wording of it. */
const FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the other side',
  ConnectionClosed: 'connection closed before an answer',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  DNSException: 'host not found',
}

/**
 * Why a request got no answer, in plain words for the common causes (a refused, reset or dropped
 * connection, an unknown host), else the error's own message; 200 characters at most.
 */
export function connectionFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const known = typeof code === 'string' ? FAILURES[code] : undefined
  if (known) return known
  const message = error instanceof Error ? error.message : String(error)
  return message.slice(0, 200)
}
