import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const APP = 'https://app.example.com'
let server: TestServer
let any: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer({ corsOrigins: [APP] })
  any = await startTestServer({ corsOrigins: ['*'] })
  acme = await server.tenant()
})
afterAll(async () => {
  await server.stop()
  await any.stop()
})

const list = (value: string | null) => (value ?? '').split(',').map((v) => v.trim())
const preflight = (target: TestServer, path: string, method: string, origin = APP) =>
  target.fetch(path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization',
    },
  })

describe('CORS for the configured origins, on every API route', () => {
  it.each([
    ['/api/v2/orders', 'QUERY'],
    ['/api/v1/orders', 'POST'],
    ['/api/v2/orders/ord_01jd3v0m7qf8s9t2w4x6y8z0ab', 'PATCH'],
    ['/api/v2/search', 'QUERY'],
    ['/graphql', 'POST'],
    ['/oauth/token', 'POST'],
    ['/oauth/revoke', 'POST'],
    ['/oauth/introspect', 'POST'],
    ['/oauth/device_authorization', 'POST'],
  ])('preflight of %s for %s: 204 allowing it, never with credentials', async (path, method) => {
    const response = await preflight(server, path, method)
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(APP)
    expect(list(response.headers.get('access-control-allow-methods'))).toContain(method)
    expect(list(response.headers.get('access-control-allow-headers'))).toContain('Authorization')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(list(response.headers.get('vary'))).toContain('Origin')
  })

  it('an actual call exposes the rate-limit, request-id and version headers', async () => {
    const response = await acme.fetch('/api/v1/orders', { headers: { Origin: APP } })
    expect(response.headers.get('access-control-allow-origin')).toBe(APP)
    expect(list(response.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining([
        'RateLimit',
        'RateLimit-Policy',
        'X-Request-Id',
        'Deprecation',
        'Sunset',
        'Link',
      ]),
    )
  })

  it('the login and device pages are never opened to other origins', async () => {
    for (const path of ['/oauth/authorize', '/device']) {
      const response = await server.fetch(path, { headers: { Origin: APP } })
      expect(response.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  it('another origin gets no CORS headers', async () => {
    const response = await preflight(server, '/api/v2/orders', 'GET', 'https://evil.example')
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('a wildcard configuration answers * and never allows credentials', async () => {
    const response = await preflight(any, '/api/v2/orders', 'GET', 'https://whoever.example')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
  })
})
