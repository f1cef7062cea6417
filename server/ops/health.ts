import type { AnyElysia } from 'elysia'
import { json } from '../http/responses.ts'
import type { Database } from '../store/db.ts'

const NO_STORE = { 'Cache-Control': 'no-store' }

/**
 * `/healthz`: the process answers (liveness). `/readyz`: it can serve, that is the database
 * answers `SELECT 1` and the server is not shutting down (readiness). Neither needs a token.
 */
export function mountHealth(app: AnyElysia, db: Database, draining: () => boolean): void {
  app.get('/healthz', () => json(200, { status: 'ok' }, NO_STORE))
  app.get('/readyz', () => {
    if (draining()) return json(503, { status: 'unavailable', reason: 'shutting down' }, NO_STORE)
    try {
      db.query('SELECT 1').get()
      return json(200, { status: 'ok' }, NO_STORE)
    } catch {
      return json(503, { status: 'unavailable', reason: 'the database does not answer' }, NO_STORE)
    }
  })
}
