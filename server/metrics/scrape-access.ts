import { constantTimeEqual, sha256Hex } from '../../shared/crypto.ts'
import { bearerTokenOf } from '../auth/tokens.ts'
import { clientAddress } from '../http/client-address.ts'
import { isLoopback } from '../http/tls.ts'

/**
 * Who may read `/metrics` (docs/operations.md, "Metrics"): a client on this machine (its address,
 * as rate limits and the access log see it: the TCP peer, or under `--trust-proxy` the one the
 * proxy in front reports, so a public client through a local proxy is not one), or one presenting
 * `--metrics-token` as a bearer token. The token is compared as a digest, in constant time, so
 * neither its length nor its content shows in how long a refusal takes.
 */
export function scrapeAccess(metricsToken: string | undefined): (request: Request) => boolean {
  const expected = metricsToken ? new TextEncoder().encode(sha256Hex(metricsToken)) : undefined
  return (request) => {
    if (isLoopback(clientAddress(request))) return true
    if (expected === undefined) return false
    const given = bearerTokenOf(request.headers.get('authorization'))
    return given !== undefined && constantTimeEqual(new TextEncoder().encode(sha256Hex(given)), expected)
  }
}
