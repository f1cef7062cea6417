/**
 * Retries as a user meets them, with the real CLI as a process and real loopback servers: a proxy
 * answering 502 or 504, a connection dropped before any answer, a long Retry-After while piped.
 */
import { afterAll, afterEach, describe, expect, it } from 'bun:test'
import { exampleDocument } from './example-document.ts'
import { removeTempDirs, secret, spawnCli, tempDir } from './harness.ts'

const TOKEN = 'retry-token-0123456789'
secret(TOKEN)
const PAGE = { data: [{ id: 'ord_1', status: 'paid' }], pagination: { hasMore: false, next: null } }
const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})
afterAll(removeTempDirs)

/** A server answering from a script, one step per request, recording what came. */
function scripted(steps: (() => Response)[]) {
  const seen: { method: string; key: string | null }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => {
      // The document the CLI learns the collections from comes first, outside the script.
      const document = exampleDocument(request)
      if (document) return document
      seen.push({ method: request.method, key: request.headers.get('idempotency-key') })
      return (steps.shift() ?? (() => Response.json(PAGE)))()
    },
  })
  stops.push(() => server.stop(true))
  return { env: envFor(server.url.origin), seen }
}

const envFor = (url: string) => ({ API_URL: url, API_TOKEN: TOKEN, XDG_CONFIG_HOME: tempDir() })
const gateway = (status: number) => () => new Response('<html>proxy error</html>', { status })

describe('502 and 504 from a proxy', () => {
  for (const status of [502, 504]) {
    it(`retries a GET after ${status} and prints the records`, async () => {
      const { env, seen } = scripted([gateway(status)])
      const run = await spawnCli(['list', 'orders'], env)
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout)).toEqual(PAGE.data)
      expect(seen.map((r) => r.method)).toEqual(['GET', 'GET'])
    })
  }

  it('says which answer it gave up on, without making up an error code (exit 1)', async () => {
    const { env, seen } = scripted([gateway(502), gateway(502), gateway(502), gateway(502)])
    const run = await spawnCli(['get', 'orders', 'ord_1'], env)
    expect(run.code).toBe(1)
    expect(seen).toHaveLength(4)
    // The third wait (2 s and more) is announced even though stderr is not a terminal.
    expect(run.stderr).toMatch(
      /^bad gateway \(502\); retrying in 2 s\napi: the server answered 502 Bad Gateway\n$/,
    )
    expect(run.stderr).not.toContain('INTERNAL')
  }, 15_000)

  it('retries api create after 502 with the same Idempotency-Key', async () => {
    const { env, seen } = scripted([gateway(502), () => Response.json({ id: 'ord_new' }, { status: 201 })])
    const run = await spawnCli(['create', 'orders', 'status=paid'], env)
    expect(run.code).toBe(0)
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST'])
    expect(seen[0]!.key).toBeTruthy()
    expect(seen[1]!.key).toBe(seen[0]!.key)
  })

  it('sends a POST without an Idempotency-Key once', async () => {
    const { env, seen } = scripted([gateway(502)])
    const run = await spawnCli(['request', 'POST', '/api/v2/orders', 'status=paid'], env)
    expect(run.code).toBe(1)
    expect(seen).toHaveLength(1)
  })

  it('retries a QUERY after 504', async () => {
    const { env, seen } = scripted([gateway(504)])
    const run = await spawnCli(['query', 'orders', '--form', 'status=paid'], env)
    expect(run.code).toBe(0)
    expect(seen.map((r) => r.method)).toEqual(['QUERY', 'QUERY'])
  })
})

describe('a connection dropped before the answer', () => {
  /** A TCP server that closes the first connections without a word, then answers 200. */
  function dropping(drops: number) {
    let connections = 0
    const body = JSON.stringify(PAGE)
    const listener = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        async data(socket, request) {
          // The document the CLI learns the collections from is answered, outside the count.
          const path = /^GET (\S+)/.exec(request.toString())?.[1] ?? ''
          const document = exampleDocument(new Request(`http://127.0.0.1${path}`))
          if (document) {
            const text = await document.text()
            socket.write(
              `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
            )
            return void socket.end()
          }
          connections++
          if (connections <= drops) return void socket.end()
          socket.write(
            `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          )
          socket.end()
        },
      },
    })
    stops.push(() => listener.stop(true))
    return { env: envFor(`http://127.0.0.1:${listener.port}`), connections: () => connections }
  }

  it('retries a GET on a new connection', async () => {
    const server = dropping(1)
    const run = await spawnCli(['list', 'orders'], server.env)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual(PAGE.data)
    expect(server.connections()).toBe(2)
  })

  it('gives up after three retries with exit 3', async () => {
    const server = dropping(10)
    const run = await spawnCli(['get', 'orders', 'ord_1'], server.env)
    expect(run.code).toBe(3)
    expect(server.connections()).toBe(4)
    expect(run.stderr.trimEnd().split('\n').at(-1)).toStartWith(
      `api: could not reach ${server.env.API_URL} (`,
    )
  }, 15_000)

  it('does not repeat a POST without an Idempotency-Key', async () => {
    const server = dropping(10)
    const run = await spawnCli(['request', 'POST', '/api/v2/orders', 'status=paid'], server.env)
    expect(run.code).toBe(3)
    expect(server.connections()).toBe(1)
  })
})

describe('long waits are never silent', () => {
  it('announces a Retry-After of 3 s on stderr when piped, then succeeds', async () => {
    const busy = () =>
      Response.json(
        { error: { code: 'RATE_LIMITED', message: 'Slow down.', details: [] } },
        { status: 429, headers: { 'Retry-After': '3' } },
      )
    const { env } = scripted([busy])
    const started = performance.now()
    const run = await spawnCli(['list', 'orders'], env)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('server busy (429); retrying in 3 s\n')
    expect(performance.now() - started).toBeGreaterThanOrEqual(3000)
    expect(JSON.parse(run.stdout)).toEqual(PAGE.data)
  }, 15_000)
})
