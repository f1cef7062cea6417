import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectAllow, expectError } from './fixtures.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

/** A well-formed id that names nothing, so that only authentication can decide the answer. */
const id = (prefix: string) => `${prefix}_01jd3v0m7qf8s9t2w4x6y8z0ab`

const WRITABLE_COLLECTION = ['GET', 'HEAD', 'POST', 'DELETE']
const READ_ONLY = ['GET', 'HEAD']
const SINGLETON = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']

/** Every route shape of the REST API with the methods it serves. */
const ROUTES: [string, string[]][] = [
  ['/api/v1/users', WRITABLE_COLLECTION],
  ['/api/v1/products', WRITABLE_COLLECTION],
  ['/api/v1/orders', WRITABLE_COLLECTION],
  ['/api/v1/posts', WRITABLE_COLLECTION],
  ['/api/v1/addresses', READ_ONLY],
  ['/api/v1/line-items', READ_ONLY],
  ['/api/v1/comments', READ_ONLY],
  ['/api/v1/events', READ_ONLY],
  [`/api/v1/users/${id('usr')}`, SINGLETON],
  [`/api/v1/products/${id('prd')}`, SINGLETON],
  [`/api/v1/orders/${id('ord')}`, SINGLETON],
  [`/api/v1/posts/${id('pst')}`, SINGLETON],
  [`/api/v1/addresses/${id('adr')}`, SINGLETON],
  [`/api/v1/line-items/${id('lit')}`, SINGLETON],
  [`/api/v1/comments/${id('cmt')}`, SINGLETON],
  [`/api/v1/events/${id('evt')}`, READ_ONLY],
  [`/api/v1/users/${id('usr')}/addresses`, WRITABLE_COLLECTION],
  [`/api/v1/orders/${id('ord')}/line-items`, WRITABLE_COLLECTION],
  [`/api/v1/posts/${id('pst')}/comments`, WRITABLE_COLLECTION],
  [`/api/v1/users/${id('usr')}/addresses/${id('adr')}`, SINGLETON],
  [`/api/v1/orders/${id('ord')}/line-items/${id('lit')}`, SINGLETON],
  [`/api/v1/posts/${id('pst')}/comments/${id('cmt')}`, SINGLETON],
]

const requests = ROUTES.flatMap(([path, methods]) => methods.map((method) => [method, path] as const))

/** A body for the methods that carry one, so that only the missing token can be the problem. */
const withBody = (method: string): RequestInit =>
  ['POST', 'PUT', 'PATCH'].includes(method)
    ? { method, body: '{"name":"x"}', headers: { 'Content-Type': 'application/json' } }
    : { method }

describe('requests without a valid access token', () => {
  it.each(requests)('answer %s %s with 401 and a Bearer challenge', async (method, path) => {
    const response = await server.fetch(path, withBody(method))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer realm="api"')
    if (method !== 'HEAD') await expectError(response, 401, 'UNAUTHORIZED', [])
  })

  it.each([
    ['a malformed token', 'Bearer not-a-jwt'],
    ['another scheme', `Basic ${btoa('a:b')}`],
    ['an empty Bearer', 'Bearer '],
  ])('answer with %s: 401 with error="invalid_token" or a bare challenge', async (_, authorization) => {
    const response = await server.fetch('/api/v1/orders', { headers: { Authorization: authorization } })
    await expectError(response, 401, 'UNAUTHORIZED')
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer realm="api"')
  })

  it('answers a token whose signature was altered with 401 invalid_token', async () => {
    const [header, payload, signature] = acme.token.split('.')
    const flipped = `${signature!.slice(0, -4)}${signature!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
    const response = await server.fetch('/api/v1/orders', {
      headers: { Authorization: `Bearer ${header}.${payload}.${flipped}` },
    })
    await expectError(response, 401, 'UNAUTHORIZED')
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  it('creates nothing on an unauthenticated POST', async () => {
    const before = await server.sql.count('users')
    const response = await server.fetch('/api/v1/users', withBody('POST'))
    expect(response.status).toBe(401)
    expect(await server.sql.count('users')).toBe(before)
  })

  it.each([
    ['POST', `/api/v1/users/${id('usr')}`],
    ['PATCH', '/api/v1/users'],
    ['POST', '/api/v1/events'],
  ])('answer an unsupported %s %s with 401 too, not with 405', async (method, path) => {
    const response = await server.fetch(path, withBody(method))
    await expectError(response, 401, 'UNAUTHORIZED')
  })

  it('still answer OPTIONS, which carries no credentials (CORS preflight)', async () => {
    const response = await server.fetch('/api/v1/orders', { method: 'OPTIONS' })
    expect(response.status).toBe(204)
    expectAllow(response, ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'])
  })
})

describe('unknown paths', () => {
  it.each([
    '/api/v1/nope',
    '/api/v1/user',
    '/nope',
    `/api/v1/users/${id('usr')}/orders`,
    `/api/v1/orders/${id('ord')}/addresses`,
    `/api/v1/users/${id('usr')}/addresses/${id('adr')}/extra`,
    `/api/v1/line-items/${id('lit')}/more`,
  ])('answer %s with 404 NOT_FOUND in the error shape, with or without a token', async (path) => {
    await expectError(await acme.fetch(path), 404, 'NOT_FOUND', [])
    await expectError(await server.fetch(path), 404, 'NOT_FOUND', [])
  })
})

describe('methods a route does not serve', () => {
  it.each([
    ['PUT', '/api/v1/orders'],
    ['PATCH', '/api/v1/orders'],
    ['POST', `/api/v1/orders/${id('ord')}`],
    ['POST', '/api/v1/line-items'],
    ['DELETE', '/api/v1/line-items'],
    ['PUT', `/api/v1/orders/${id('ord')}/line-items`],
    ['POST', `/api/v1/orders/${id('ord')}/line-items/${id('lit')}`],
    ['PATCH', '/api/v1/events'],
    ['PROPFIND', '/api/v1/users'],
  ])('answer %s %s with 405 METHOD_NOT_ALLOWED and an Allow without it', async (method, path) => {
    const response = await acme.fetch(path, withBody(method))
    await expectError(response, 405, 'METHOD_NOT_ALLOWED', [])
    expectAllow(response, ['GET', 'HEAD', 'OPTIONS'], method)
  })

  it.each(ROUTES)('OPTIONS %s answers 204 with Allow listing its methods', async (path, methods) => {
    const response = await acme.fetch(path, { method: 'OPTIONS' })
    expect(response.status).toBe(204)
    expectAllow(response, [...methods, 'OPTIONS'])
    const refused = ['POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))
    for (const method of refused) expectAllow(response, [], method)
  })
})
