import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../server/ops/logger.ts'
import { createUser } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

// The access log's `bytes` (docs/operations.md, "Logs and request ids"): the size of the body
// the server answered with, in bytes; 0 when it sends none; null for a stream.

let server: TestServer
let acme: Tenant
let userId: string
const lines: string[] = []

beforeAll(async () => {
  server = await startTestServer({ logger: createLogger('info', (line) => lines.push(line)) })
  acme = await server.tenant()
  // Not ASCII: bytes are not characters.
  userId = (await createUser(acme, { name: 'Zoë Ångström 🚀' })).id
})
afterAll(() => server.stop())

let requests = 0

/** Sends a request with its own id; its answer's body size and its access-log line. */
async function logged(
  path: string,
  init: RequestInit & { json?: unknown } = {},
  tenant: Tenant | null = acme,
) {
  const id = `bytes-${++requests}`
  const headers = new Headers(init.headers)
  headers.set('X-Request-Id', id)
  const response = await (tenant
    ? tenant.fetch(path, { ...init, headers })
    : server.fetch(path, { ...init, headers }))
  const received = (await response.arrayBuffer()).byteLength
  const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === id)
  return { status: response.status, received, line }
}

describe('the access log: bytes', () => {
  const answered: [string, string, RequestInit & { json?: unknown }, number][] = [
    ['GET a record', '/api/v1/users/:user', {}, 200],
    ['GET a list', '/api/v2/users', {}, 200],
    ['GET a path that does not exist', '/api/v1/nothing', {}, 404],
    [
      'POST a record',
      '/api/v1/users',
      { method: 'POST', json: { name: 'Ünal', email: 'u@example.com' } },
      201,
    ],
    ['POST /graphql', '/graphql', { method: 'POST', json: { query: '{ users { nodes { name } } }' } }, 200],
    ['GET the docs page', '/docs', {}, 200],
    ['GET the OAuth metadata', '/.well-known/oauth-authorization-server', {}, 200],
  ]

  it.each(answered)('%s: the size of the body sent, in bytes', async (_, path, init, status) => {
    const answer = await logged(path.replace(':user', userId), init)
    expect(answer.status).toBe(status)
    expect(answer.received).toBeGreaterThan(0)
    expect(answer.line).toMatchObject({ msg: 'request', status, bytes: answer.received })
  })

  it('a 401 without a token carries its size too', async () => {
    const answer = await logged('/api/v1/users', {}, null)
    expect(answer.line).toMatchObject({ status: 401, bytes: answer.received })
  })

  it('HEAD, 304 and 204 send no body: 0; a subscription streamed as Server-Sent Events: null', async () => {
    const path = `/api/v1/users/${userId}`
    const head = await logged(path, { method: 'HEAD' })
    expect(head.line).toMatchObject({ status: 200, bytes: 0 })
    const etag = (await acme.fetch(path)).headers.get('etag')!
    const notModified = await logged(path, { headers: { 'If-None-Match': etag } })
    expect(notModified.line).toMatchObject({ status: 304, bytes: 0 })
    const { id } = await createUser(acme)
    const deleted = await logged(`/api/v1/users/${id}`, { method: 'DELETE' })
    expect(deleted.line).toMatchObject({ status: 204, bytes: 0 })
    // A stream's size is not known when the line is written.
    const streamId = `bytes-${++requests}`
    const controller = new AbortController()
    const response = await acme.fetch('/graphql', {
      method: 'POST',
      headers: { Accept: 'text/event-stream', 'X-Request-Id': streamId },
      json: { query: 'subscription { events { id } }' },
      signal: controller.signal,
    })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    controller.abort()
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === streamId)
    expect(line).toMatchObject({ status: 200, bytes: null })
  })
})
