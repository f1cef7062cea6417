import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCorsOrigins } from '../../server/http/cors.ts'
import { runAdmin } from '../admin/run.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { ACCEPT_QUERY, query, SQL } from './support.ts'

const APP = 'https://app.example.com'
let server: TestServer
let plain: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer({ corsOrigins: [APP, 'http://localhost:5173'] })
  plain = await startTestServer()
  acme = await server.tenant()
})
afterAll(async () => {
  await server.stop()
  await plain.stop()
})

const preflight = (target: TestServer, path: string, origin: string, method = 'QUERY') =>
  target.fetch(path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization, content-type',
    },
  })

const list = (value: string | null) => (value ?? '').split(',').map((v) => v.trim())

describe('CORS preflight for QUERY from a configured origin', () => {
  for (const path of [
    '/api/v1/orders',
    '/api/v1/search',
    '/api/v1/users/usr_01jd3v0m7qf8s9t2w4x6y8z0ab/addresses',
  ]) {
    it(`OPTIONS ${path}: 204 allowing QUERY, the request headers it needs, and exposing the QUERY headers`, async () => {
      const response = await preflight(server, path, APP)
      expect(response.status).toBe(204)
      expect(response.headers.get('access-control-allow-origin')).toBe(APP)
      expect(list(response.headers.get('access-control-allow-methods'))).toEqual(
        expect.arrayContaining(['GET', 'HEAD', 'QUERY', 'OPTIONS']),
      )
      expect(list(response.headers.get('access-control-allow-headers'))).toEqual(
        expect.arrayContaining([
          'Authorization',
          'Content-Type',
          'Idempotency-Key',
          'If-Match',
          'If-None-Match',
          'If-Modified-Since',
        ]),
      )
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0)
      expect(list(response.headers.get('vary'))).toContain('Origin')
      expect(response.headers.get('accept-query')).toBe(ACCEPT_QUERY)
      expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    })
  }

  it('a singleton preflight does not offer QUERY', async () => {
    const response = await preflight(server, '/api/v1/users/usr_01jd3v0m7qf8s9t2w4x6y8z0ab', APP, 'GET')
    expect(response.status).toBe(204)
    expect(list(response.headers.get('access-control-allow-methods'))).not.toContain('QUERY')
  })

  it('an origin that is not configured gets no CORS headers', async () => {
    const response = await preflight(server, '/api/v1/orders', 'https://evil.example')
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(response.headers.get('access-control-allow-methods')).toBeNull()
  })

  it('a server without --cors-origin allows no origin at all', async () => {
    const response = await preflight(plain, '/api/v1/orders', APP)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('CORS on the actual cross-origin QUERY', () => {
  it('allows the origin and exposes Location, Content-Location, Accept-Query and ETag', async () => {
    const response = await query(acme, '/api/v1/orders', SQL, 'SELECT * FROM orders', { Origin: APP })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe(APP)
    expect(list(response.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining(['Location', 'Content-Location', 'Accept-Query', 'ETag']),
    )
    expect(list(response.headers.get('vary'))).toEqual(
      expect.arrayContaining(['Authorization', 'Content-Type', 'Origin']),
    )
  })

  it('errors carry the CORS headers too, so the browser can read them', async () => {
    const response = await query(acme, '/api/v1/orders', 'text/plain', 'x', { Origin: APP })
    expect(response.status).toBe(415)
    expect(response.headers.get('access-control-allow-origin')).toBe(APP)
  })
})

describe('configuring CORS origins', () => {
  it('takes origins and *, and refuses paths, other schemes and garbage', () => {
    expect(
      parseCorsOrigins(['https://a.example', ' http://localhost:3000 ', '*', 'https://a.example']),
    ).toEqual(['https://a.example', 'http://localhost:3000', '*'])
    for (const bad of ['https://a.example/', 'https://a.example/app', 'ftp://a.example', 'a.example', 'null'])
      expect(() => parseCorsOrigins([bad])).toThrow(bad)
  })

  it('api-server serve refuses a bad --cors-origin with a usage error (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-cors-'))
    try {
      const run = await runAdmin(
        ['serve', '--port', '0', '--cors-origin', 'https://a.example/path'],
        join(dir, 'x.db'),
      )
      expect(run.status).toBe(2)
      expect(run.stderr).toContain('--cors-origin')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
