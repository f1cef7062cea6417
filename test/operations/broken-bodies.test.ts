import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { connect } from 'node:net'
import { createLogger } from '../../server/ops/logger.ts'
import { createUser } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

// Request bodies that end early, stall or break their chunked framing, sent over raw sockets:
// authentication decides first (401), then the body (400 ended early, 408 stalled), and none of
// them is a 5xx or an error line in the log (docs/api.md, "Broken request bodies").

const BODY_IDLE_TIMEOUT_MS = 300

let server: TestServer
let acme: Tenant
let port: number
const lines: string[] = []

beforeAll(async () => {
  server = await startTestServer({
    bodyIdleTimeoutMs: BODY_IDLE_TIMEOUT_MS,
    logger: createLogger('info', (line) => lines.push(line)),
  })
  acme = await server.tenant()
  port = Number(new URL(server.url).port)
})
afterAll(() => server.stop())

interface Answer {
  status?: number
  headers: Record<string, string>
  body: string
  /** Milliseconds from sending to the whole answer (or the connection's end). */
  ms: number
}

function parse(data: string, ms: number): Answer {
  const end = data.indexOf('\r\n\r\n')
  const [statusLine = '', ...fields] = data.slice(0, end === -1 ? data.length : end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const field of fields) {
    const colon = field.indexOf(':')
    headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim()
  }
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]
  return {
    status: status ? Number(status) : undefined,
    headers,
    body: end === -1 ? '' : data.slice(end + 4),
    ms,
  }
}

/** True once `data` holds a whole response with a Content-Length. */
function complete(data: string): boolean {
  const answer = parse(data, 0)
  const length = answer.headers['content-length']
  return length !== undefined && Buffer.byteLength(answer.body) >= Number(length)
}

/**
 * Writes `text` on a fresh connection (pieces `pauseMs` apart; then half-closes it when asked)
 * and reads until a whole response arrived, the server closed the connection, or `waitMs` passed.
 */
function exchange(
  text: string | string[],
  options: { halfClose?: boolean; waitMs?: number; pauseMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now()
    const socket = connect(port, '127.0.0.1')
    let data = ''
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parse(data, performance.now() - started))
    }
    const timer = setTimeout(finish, options.waitMs ?? 3000)
    socket.on('data', (chunk) => {
      data += chunk.toString()
      if (complete(data)) finish()
    })
    socket.on('close', finish)
    socket.on('error', finish)
    const pieces = typeof text === 'string' ? [text] : text
    for (const [i, piece] of pieces.entries())
      if (i === 0) socket.write(piece)
      else setTimeout(() => socket.write(piece), i * (options.pauseMs ?? 0))
    if (options.halfClose) socket.end()
  })
}

let requests = 0
/** A request head with its own X-Request-Id, to find its access-log line. */
function head(method: string, path: string, fields: Record<string, string>): { id: string; text: string } {
  const id = `broken-${++requests}`
  const all = { Host: `127.0.0.1:${port}`, 'X-Request-Id': id, ...fields }
  const text = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`
  return { id, text }
}

const bearer = () => ({ Authorization: `Bearer ${acme.token}` })
const json = { 'Content-Type': 'application/json' }
/** Content-Length: 1000 and a 6-byte body, as in the report. */
const short = { ...json, 'Content-Length': '1000' }
const PARTIAL = '{"a":1'

/** The access-log line of a request, once the server wrote it. */
async function logLine(id: string): Promise<Record<string, unknown> | undefined> {
  for (let waited = 0; waited < 2000; waited += 20) {
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === id)
    if (line) return line
    await Bun.sleep(20)
  }
  return undefined
}

const errorLines = (id: string) =>
  lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.requestId === id && l.level === 'error')

describe('POST /api/v1/orders without a token, with a body that never arrives in full', () => {
  it('answers 401 at once, before the body ends, whatever the Host (x and api as in the report)', async () => {
    for (const host of [`127.0.0.1:${port}`, 'x', 'api']) {
      const { text } = head('POST', '/api/v1/orders', { ...short, Host: host })
      const answer = await exchange(text + PARTIAL)
      expect({ host, status: answer.status }).toEqual({ host, status: 401 })
      expect(JSON.parse(answer.body).error.code).toBe('UNAUTHORIZED')
      expect(answer.ms).toBeLessThan(BODY_IDLE_TIMEOUT_MS)
    }
  })

  // With the quota in Redis (npm run test:postgres) the edge awaits Redis before it answers, and
  // Bun drops the answer to a connection the client half-closed in the meantime: the client sees
  // the connection close instead of a 401 (docs/api.md, "Broken request bodies").
  it.skipIf(process.env.API_TEST_REDIS_URL !== undefined)(
    'answers 401 when the client half-closes after the 6 bytes (Host: x)',
    async () => {
      const { text } = head('POST', '/api/v1/orders', { ...short, Host: 'x' })
      const answer = await exchange(text + PARTIAL, { halfClose: true })
      expect(answer.status).toBe(401)
    },
  )
})

describe('a body that stops arriving, with a valid token', () => {
  it('POST /api/v1/orders waits through pauses shorter than the body timeout, and answers 408 after a longer one', async () => {
    const { id: userId } = await createUser(acme)
    const body = JSON.stringify({ userId, amount: 5, currency: 'EUR' })
    const slow = head('POST', '/api/v1/orders', {
      ...bearer(),
      ...json,
      'Content-Length': String(body.length),
    })
    // Each piece comes well within the timeout; the whole takes longer than it.
    const pieces = [slow.text, ...(body.match(/.{1,10}/g) ?? [])]
    expect(pieces.length).toBeGreaterThan(4)
    expect((await exchange(pieces, { pauseMs: BODY_IDLE_TIMEOUT_MS / 3 })).status).toBe(201)

    const { id, text } = head('POST', '/api/v1/orders', { ...bearer(), ...short })
    const answer = await exchange(text + PARTIAL)
    expect(answer.status).toBe(408)
    expect(answer.headers.connection).toBe('close')
    expect(JSON.parse(answer.body).error.code).toBe('REQUEST_TIMEOUT')
    expect(answer.ms).toBeGreaterThanOrEqual(BODY_IDLE_TIMEOUT_MS - 20)
    expect(await logLine(id)).toMatchObject({ level: 'info', status: 408 })
    expect(errorLines(id)).toEqual([])
  })

  const stalled: [string, string][] = [
    ['PATCH', '/api/v2/orders/ord_01jd3v0m7qf8s9t2w4x6y8z0ab'],
    ['QUERY', '/api/v1/orders'],
    ['POST', '/graphql'],
  ]

  it.each(stalled)('%s %s answers 408 REQUEST_TIMEOUT too', async (method, path) => {
    const { id, text } = head(method, path, { ...bearer(), ...short })
    const answer = await exchange(text + PARTIAL)
    expect(answer.status).toBe(408)
    expect(JSON.parse(answer.body).error.code).toBe('REQUEST_TIMEOUT')
    expect(await logLine(id)).toMatchObject({ level: 'info', status: 408 })
  })

  it('POST /oauth/token answers 408 with invalid_request, as OAuth errors are written', async () => {
    const { id, text } = head('POST', '/oauth/token', {
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': '100',
    })
    const answer = await exchange(`${text}grant_type=client_`)
    expect(answer.status).toBe(408)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' })
    expect(errorLines(id)).toEqual([])
  })
})

describe('a body that ends early, with a valid token', () => {
  it('a half-closed connection after 6 of 1000 bytes is a 400 in the log, never a 500, and writes nothing', async () => {
    const orders = await server.sql.count('orders')
    const { id, text } = head('POST', '/api/v1/orders', { ...bearer(), ...short })
    const answer = await exchange(text + PARTIAL, { halfClose: true })
    // Bun drops a half-closed connection: the 400 reaches the client only where it keeps it.
    if (answer.status !== undefined) expect(answer.status).toBe(400)
    expect(await logLine(id)).toMatchObject({ level: 'info', status: 400 })
    expect(errorLines(id)).toEqual([])
    expect(await server.sql.count('orders')).toBe(orders)
  })

  it('a malformed chunked body (zz\\r\\nabc\\r\\n0\\r\\n\\r\\n) is 400, logged as a client error', async () => {
    const { id, text } = head('POST', '/api/v1/orders', {
      ...bearer(),
      ...json,
      'Transfer-Encoding': 'chunked',
    })
    const answer = await exchange(`${text}zz\r\nabc\r\n0\r\n\r\n`)
    expect(answer.status).toBe(400)
    expect(await logLine(id)).toMatchObject({ level: 'info', status: 400 })
    expect(errorLines(id)).toEqual([])
  })
})
