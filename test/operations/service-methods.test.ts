import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from '../support/server.ts'

// The service's own fixed paths answer another method as the API's paths do: 405 with Allow
// (and OPTIONS with Allow), not 404; a path that does not exist stays 404.

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const READ_ONLY = [
  '/',
  '/docs',
  '/healthz',
  '/readyz',
  '/api/versions',
  '/api/v1/openapi.json',
  '/api/v2/openapi.json',
  '/.well-known/jwks.json',
  '/.well-known/oauth-authorization-server',
]

describe('methods on the service paths', () => {
  it.each(READ_ONLY)('%s: DELETE, PUT and POST are 405 with Allow: GET, HEAD, OPTIONS', async (path) => {
    expect((await server.fetch(path)).status).toBe(200)
    for (const method of ['DELETE', 'PUT', 'POST']) {
      const response = await server.fetch(path, { method })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
      const body = (await response.json()) as { error: { code: string } }
      expect(body.error.code).toBe('METHOD_NOT_ALLOWED')
    }
    const options = await server.fetch(path, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })

  it('keeps 404 for a path that does not exist, whatever the method', async () => {
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const response = await server.fetch('/no-such-path', { method })
      expect(response.status).toBe(404)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
    }
  })
})
