import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser, readJson } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
})
afterAll(() => server.stop())

// Contract, "Versions": the dates of server/versions/versions.ts.
const DEPRECATION = `@${Date.parse('2026-11-01T00:00:00Z') / 1000};version="v1"`
const SUNSET = 'Mon, 01 Nov 2027 00:00:00 GMT'

function expectDeprecated(response: Response, successor: string) {
  expect(response.headers.get('deprecation')).toBe(DEPRECATION)
  expect(response.headers.get('sunset')).toBe(SUNSET)
  expect(response.headers.get('link')).toBe(`<${successor}>; rel="successor-version"`)
  // RFC 8594 §3: the sunset is not earlier than the deprecation.
  expect(Date.parse(SUNSET) / 1000).toBeGreaterThan(Number(DEPRECATION.slice(1, DEPRECATION.indexOf(';'))))
}

describe('every /api/v1 response is marked deprecated, pointing at the same path in v2', () => {
  const cases: [string, () => Promise<Response>, number, string | (() => string)][] = [
    ['GET a collection', () => acme.fetch('/api/v1/orders'), 200, '/api/v2/orders'],
    ['GET a singleton', () => acme.fetch(`/api/v1/users/${userId}`), 200, () => `/api/v2/users/${userId}`],
    [
      'POST (201)',
      () => acme.fetch('/api/v1/orders', { method: 'POST', json: { userId, amount: 100, currency: 'EUR' } }),
      201,
      '/api/v2/orders',
    ],
    [
      'a validation error (422)',
      () => acme.fetch('/api/v1/orders', { method: 'POST', json: { userId } }),
      422,
      '/api/v2/orders',
    ],
    ['no token (401)', () => server.fetch('/api/v1/orders'), 401, '/api/v2/orders'],
    ['an unknown path (404)', () => acme.fetch('/api/v1/nothing-here'), 404, '/api/v2/nothing-here'],
    ['OPTIONS (204)', () => server.fetch('/api/v1/orders', { method: 'OPTIONS' }), 204, '/api/v2/orders'],
    ['the search', () => acme.fetch('/api/v1/search?q=ann'), 200, '/api/v2/search'],
    ['its OpenAPI document', () => server.fetch('/api/v1/openapi.json'), 200, '/api/v2/openapi.json'],
  ]
  it.each(cases)('%s', async (_, send, status, successor) => {
    const response = await send()
    expect(response.status).toBe(status)
    expectDeprecated(response, typeof successor === 'string' ? successor : successor())
  })

  it('a 304 too', async () => {
    const first = await acme.fetch(`/api/v1/users/${userId}`)
    const again = await acme.fetch(`/api/v1/users/${userId}`, {
      headers: { 'If-None-Match': first.headers.get('etag')! },
    })
    expect(again.status).toBe(304)
    expectDeprecated(again, `/api/v2/users/${userId}`)
  })
})

describe('/api/v2 is current', () => {
  it('answers the same records with no deprecation headers', async () => {
    const response = await acme.fetch(`/api/v2/users/${userId}`)
    expect(response.status).toBe(200)
    expect((await readJson(response)).id).toBe(userId)
    for (const name of ['deprecation', 'sunset', 'link']) expect(response.headers.get(name)).toBeNull()
  })
})

describe('GET /api/versions', () => {
  it('lists every version with its status, sunset date and changes, without a token', async () => {
    const response = await server.fetch('/api/versions')
    expect(response.status).toBe(200)
    const { data } = (await response.json()) as {
      data: { version: string; status: string; sunset: string | null; changes: { description: string }[] }[]
    }
    expect(data.map((v) => [v.version, v.status, v.sunset])).toEqual([
      ['v1', 'deprecated', '2027-11-01T00:00:00Z'],
      ['v2', 'current', null],
    ])
    expect(data[1]!.changes[0]!.description).toContain('money objects')
  })
})

describe('only whole-number versions exist', () => {
  it.each(['/api/v1.1/orders', '/api/v2.0/orders', '/api/v3/orders', '/api/v0/orders', '/api/orders'])(
    '%s is 404 in the contract shape',
    async (path) => {
      const response = await acme.fetch(path)
      expect(response.status).toBe(404)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
      expect(response.headers.get('deprecation')).toBeNull()
    },
  )
})
