import type { Logger } from '../ops/logger.ts'
import { withRequestId } from '../ops/logger.ts'
import { requestIdOf } from './request-id.ts'
import { errorResponse } from './responses.ts'

/**
 * The answer to an error that got past the edge (server/http/edge.ts), or that Bun caught with
 * no request to name: the contract's body (500 `INTERNAL` unless it is an ApiError) with an
 * `X-Request-Id`, and the error in one JSON log line under that id. Never a stack, and never
 * Bun's development error page, which shows stack frames and source lines.
 */
export function lastResort(logger: Logger, error: unknown, request?: Request): Response {
  const requestId = request ? requestIdOf(request) : crypto.randomUUID()
  const response = errorResponse(error, (cause) => {
    try {
      withRequestId(requestId, () => logger.error(cause))
    } catch {
      // A log that cannot be written must not cost the client its answer.
    }
  })
  response.headers.set('X-Request-Id', requestId)
  response.headers.set('X-Content-Type-Options', 'nosniff')
  return response
}
