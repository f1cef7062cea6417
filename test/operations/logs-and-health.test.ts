import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createApp } from '../../server/app.ts'
import { createLogger } from '../../server/ops/logger.ts'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createPost, type ErrorBody } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
const lines: string[] = []
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)

beforeAll(async () => {
  server = await startTestServer({ logger: createLogger('debug', (line) => lines.push(line)) })
  acme = await server.tenant()
})
afterAll(() => server.stop())

describe('X-Request-Id', () => {
  it('echoes an acceptable id the client sends', async () => {
    const response = await acme.fetch('/api/v2/orders', { headers: { 'X-Request-Id': 'abc.DEF_123-x' } })
    expect(response.headers.get('x-request-id')).toBe('abc.DEF_123-x')
  })

  it.each([['with spaces'], ['x'.repeat(129)], ['semi;colon'], ['']])(
    'replaces %p with a fresh one',
    async (id) => {
      const response = await server.fetch('/healthz', { headers: { 'X-Request-Id': id } })
      expect(response.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
    },
  )

  it('is on every response: errors, 404s, OAuth, GraphQL, pages', async () => {
    for (const path of [
      '/api/v1/nothing',
      '/oauth/token',
      '/graphql',
      '/oauth/authorize',
      '/docs',
      '/api/versions',
    ]) {
      const response = await server.fetch(path)
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-/)
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })
})

describe('the access log', () => {
  it('has one JSON line per request: time, level, requestId, method, path without the query, status, duration', async () => {
    lines.length = 0
    await acme.fetch('/api/v1/orders?status=paid&cursor=secret-cursor', {
      headers: { 'X-Request-Id': 'log-test-1' },
    })
    const line = logged().find((l) => l.requestId === 'log-test-1')!
    // A made-up cursor: 400, and the log says so without repeating it.
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/v1/orders',
      status: 400,
    })
    expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(line.durationMs).toBeNumber()
    expect(line.client).toBe('127.0.0.1')
    expect(lines.join('\n')).not.toContain('secret-cursor')
  })

  it('masks the token of a stored result in the path', async () => {
    lines.length = 0
    const response = await acme.fetch('/api/v1/orders', {
      method: 'QUERY',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    })
    const result = response.headers.get('content-location')!
    await acme.fetch(result, { headers: { 'X-Request-Id': 'log-test-2' } })
    const line = logged().find((l) => l.requestId === 'log-test-2')!
    expect(line.path).toEndWith('/results/[redacted]')
    expect(lines.join('\n')).not.toContain(result.split('/').at(-1)!)
  })
})

describe('a 500', () => {
  it('never shows internals; the log has the cause and the stack under the request id', async () => {
    const tenant = await server.tenant()
    await createPost(tenant)
    lines.length = 0
    // Break the server's database under it: its next read of posts fails inside SQLite.
    await server.sql.run('ALTER TABLE comments RENAME TO comments_moved_away')
    try {
      const response = await tenant.fetch('/api/v2/comments', { headers: { 'X-Request-Id': 'boom-1' } })
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(JSON.parse(text) as ErrorBody).toEqual({
        error: { code: 'INTERNAL', message: 'The server could not complete the request.', details: [] },
      })
      expect(text).not.toMatch(/comments|sqlite|at |\.ts/i)
      const errors = logged().filter((l) => l.requestId === 'boom-1' && l.level === 'error')
      const cause = errors.find((l) => l.msg === 'unexpected error') as {
        error: { message: string; stack: string }
      }
      expect(cause.error.message).toContain('comments')
      expect(cause.error.stack).toContain('.ts')
      expect(errors.find((l) => l.msg === 'request')).toMatchObject({ status: 500 })
    } finally {
      await server.sql.run('ALTER TABLE comments_moved_away RENAME TO comments')
    }
  })
})

describe('--log-level', () => {
  it('keeps lines at or above the level, none when silent', () => {
    const seen: string[] = []
    const warn = createLogger('warn', (line) => seen.push(line))
    warn.log('info', 'no')
    warn.log('warn', 'yes')
    warn.error(new Error('also'))
    createLogger('silent', (line) => seen.push(line)).error(new Error('never'))
    expect(seen.map((l) => JSON.parse(l).msg)).toEqual(['yes', 'unexpected error'])
  })

  it('masks anything shaped like a token, even in an error message', () => {
    const seen: string[] = []
    createLogger('info', (line) => seen.push(line)).error(
      new Error(
        'bad Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl and rt_AAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      ),
    )
    expect(seen[0]).not.toContain('eyJ')
    expect(seen[0]).not.toContain('rt_AAAA')
  })
})

describe('/healthz and /readyz', () => {
  it('answer 200 without a token', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await server.fetch(path)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ status: 'ok' })
      expect(response.headers.get('cache-control')).toBe('no-store')
    }
  })

  it('/readyz is 503 when the database does not answer, /healthz still 200', async () => {
    const db = openDatabase(':memory:')
    await migrateDatabase(db, exampleSchema())
    const app = await createApp({
      schema: exampleSchema(),
      store: sqliteStore(db, exampleSchema()),
      baseUrl: 'http://127.0.0.1',
    })
    db.close()
    const ready = await app.fetch(new Request('http://127.0.0.1/readyz'))
    expect(ready.status).toBe(503)
    expect(((await ready.json()) as { status: string }).status).toBe('unavailable')
    expect((await app.fetch(new Request('http://127.0.0.1/healthz'))).status).toBe(200)
  })

  it('/readyz is 503 once the server is shutting down', async () => {
    const db = openDatabase(':memory:')
    await migrateDatabase(db, exampleSchema())
    const app = await createApp({
      schema: exampleSchema(),
      store: sqliteStore(db, exampleSchema()),
      baseUrl: 'http://127.0.0.1',
    })
    app.drain()
    expect((await app.fetch(new Request('http://127.0.0.1/readyz'))).status).toBe(503)
    db.close()
  })
})

describe('standard output', () => {
  // Lines are written in batches (one write per turn of the event loop, docs/operations.md):
  // none may be lost or reordered, including those still waiting when the process exits.
  it('keeps every line, in order, also those waiting at exit', async () => {
    const script = `
      import { createLogger } from ${JSON.stringify(`${import.meta.dir}/../../server/ops/logger.ts`)}
      const logger = createLogger('info')
      for (let i = 0; i < 3000; i++) logger.log('info', 'line', { i })
      await new Promise((resolve) => setTimeout(resolve, 5))
      for (let i = 3000; i < 6000; i++) logger.log('info', 'line', { i })
      process.exit(0)
    `
    const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'inherit' })
    const [text, status] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect(status).toBe(0)
    const numbers = text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { i: number }).i)
    expect(numbers).toEqual(Array.from({ length: 6000 }, (_, i) => i))
  })
})
