import type { AnyElysia } from 'elysia'
import type { RedisConnection } from '../http/redis-connection.ts'
import { json } from '../http/responses.ts'
import type { Store } from '../store/store.ts'

const NO_STORE = { 'Cache-Control': 'no-store' }

/**
 * `/healthz`: the process answers (liveness). `/readyz`: it can serve, that is the database
 * answers, and Redis too when `--redis` names one, and the server is not shutting down
 * (readiness). Neither needs a token.
 */
export function mountHealth(
  app: AnyElysia,
  store: Store,
  draining: () => boolean,
  redis?: RedisConnection,
): void {
  app.get('/healthz', () => json(200, { status: 'ok' }, NO_STORE))
  app.get('/readyz', async () => {
    if (draining()) return json(503, { status: 'unavailable', reason: 'shutting down' }, NO_STORE)
    try {
      await store.ping()
    } catch {
      return json(503, { status: 'unavailable', reason: 'the database does not answer' }, NO_STORE)
    }
    if (redis && !(await redis.reachable()))
      return json(503, { status: 'unavailable', reason: 'Redis does not answer' }, NO_STORE)
    return json(200, { status: 'ok' }, NO_STORE)
  })
}
