/**
 * Requests written byte for byte on a socket, as fetch and curl never send them: no Host, two
 * Host lines, a Host that is not a host, an unknown method; and an error that escapes the edge.
 * Whatever comes, the answer is the contract's JSON (or, where Bun answers before the
 * application runs, exactly what Bun sends: docs/operations.md, "Malformed requests"),
 * never Bun's HTML error page with its stack frames.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger, type Logger } from '../../server/ops/logger.ts'
import { type RawAnswer, rawExchange } from '../support/raw-http.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const request = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`

/** The answer is never an HTML page, nor names a source file or a stack frame. */
function expectNoErrorPage(answer: RawAnswer): void {
  expect(answer.headers['content-type'] ?? '').not.toContain('text/html')
  expect(answer.text).not.toMatch(/<!doctype|<html|\.ts:\d+|at \w+ \(/i)
}

function expectJsonError(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
  expect(answer.headers['x-request-id']).toMatch(/^[\w.-]+$/)
  const body = JSON.parse(answer.body) as {
    error: { code: string; details: { field: string; message: string }[] }
  }
  expect(body.error.code).toBe(code)
  return body.error
}

describe('a request without a usable Host', () => {
  it.each([
    ['HTTP/1.0 without Host', ['GET /healthz HTTP/1.0']],
    ['HTTP/1.0 with an empty Host', ['GET /healthz HTTP/1.0', 'Host:']],
    ['HTTP/1.1 with an empty Host', ['GET /healthz HTTP/1.1', 'Host:', 'Connection: close']],
  ])("%s is served under the server's own origin (RFC 9112 §3.3)", async (_, lines) => {
    const answer = await rawExchange(server.url, request(lines))
    expectNoErrorPage(answer)
    expect(answer.status).toBe(200)
    expect(answer.headers['x-request-id']).toBeDefined()
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' })
  })

  it('HTTP/1.0 without Host reaches the API with its query string (401 without a token)', async () => {
    const answer = await rawExchange(server.url, request(['GET /api/v2/orders?limit=1 HTTP/1.0']))
    expectNoErrorPage(answer)
    expectJsonError(answer, 401, 'UNAUTHORIZED')
  })

  it('HTTP/1.1 without Host is answered by Bun itself: a bare 400, and the connection closed', async () => {
    const answer = await rawExchange(server.url, request(['GET /healthz HTTP/1.1']))
    expect(answer.text).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    expect(answer.closed).toBe(true)
  })
})

describe('Host headers a server must refuse (RFC 9112 §3.2): 400 BAD_REQUEST naming Host', () => {
  it.each([
    ['two different Host lines', ['Host: a.example', 'Host: b.example'], 'appears more than once'],
    ['two identical Host lines', ['Host: a.example', 'Host: a.example'], 'appears more than once'],
    ['a list in one Host line', ['Host: a.example, b.example'], 'appears more than once'],
    ['a space in the host', ['Host: a b'], 'is not a valid host'],
    ['a path in the host', ['Host: a.example/b'], 'is not a valid host'],
    ['a port that is not a number', ['Host: a.example:b'], 'is not a valid host'],
    ['a port out of range', ['Host: a.example:99999'], 'is not a valid host'],
    ['an unclosed IPv6 literal', ['Host: [::1'], 'is not a valid host'],
  ])('%s', async (_, hosts, problem) => {
    const answer = await rawExchange(
      server.url,
      request(['GET /healthz HTTP/1.1', ...hosts, 'Connection: close']),
    )
    expectNoErrorPage(answer)
    const error = expectJsonError(answer, 400, 'BAD_REQUEST')
    expect(error.details).toEqual([{ field: 'Host', message: problem }])
  })

  it('takes a host with a port, and an IPv6 literal', async () => {
    for (const host of ['api.example:8080', '[::1]:8080', '127.0.0.1']) {
      const answer = await rawExchange(
        server.url,
        request(['GET /healthz HTTP/1.1', `Host: ${host}`, 'Connection: close']),
      )
      expect(answer.status).toBe(200)
    }
  })
})

describe('methods', () => {
  it.each(['FOO', 'BREW', 'get'])(
    'an unknown method (%s) is refused by Bun itself: the connection closed, not one byte sent',
    async (method) => {
      const answer = await rawExchange(
        server.url,
        request([`${method} /healthz HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close']),
      )
      expect(answer).toMatchObject({ text: '', closed: true })
    },
  )

  it.each(['PROPFIND', 'TRACE', 'PURGE'])(
    'a method Bun knows and no route takes (%s) is 405 with Allow in the contract body',
    async (method) => {
      const answer = await rawExchange(
        server.url,
        request([`${method} /healthz HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close']),
      )
      expectNoErrorPage(answer)
      expectJsonError(answer, 405, 'METHOD_NOT_ALLOWED')
      expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS')
    },
  )
})

describe('an error that escapes the edge', () => {
  let failing: TestServer
  const lines: string[] = []
  beforeAll(async () => {
    // The access line is written after the answer is made: a log that fails there throws past
    // every handler, as any unexpected failure at the edge would.
    const base = createLogger('info', (line) => lines.push(line))
    const logger: Logger = {
      ...base,
      log: (level, msg, fields) => {
        if (msg === 'request') throw new Error('the access log is full at /srv/secret/path.ts:12')
        base.log(level, msg, fields)
      },
    }
    failing = await startTestServer({ logger })
  })
  afterAll(() => failing.stop())

  it('is the contract 500 with a request id, and one JSON log line under that id', async () => {
    const answer = await rawExchange(
      failing.url,
      request(['GET /healthz HTTP/1.1', 'Host: 127.0.0.1', 'X-Request-Id: escaped-1', 'Connection: close']),
    )
    expectNoErrorPage(answer)
    expect(answer.status).toBe(500)
    expect(answer.headers['x-request-id']).toBe('escaped-1')
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'INTERNAL', message: 'The server could not complete the request.', details: [] },
    })
    const logged = lines.filter((line) => line.includes('unexpected error'))
    expect(logged).toHaveLength(1)
    expect(logged[0]).not.toContain('\n')
    expect(JSON.parse(logged[0]!)).toMatchObject({
      level: 'error',
      msg: 'unexpected error',
      requestId: 'escaped-1',
      error: { message: 'the access log is full at /srv/secret/path.ts:12' },
    })
  })
})
