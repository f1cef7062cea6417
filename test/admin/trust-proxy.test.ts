/**
 * `serve --trust-proxy` (docs/operations.md, "HTTPS"): behind a proxy that terminates TLS, the
 * client's address and scheme come from the last entries of X-Forwarded-For and
 * X-Forwarded-Proto; without the flag those headers are the client's words and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServeProcess, startServe } from './run.ts'

let dir: string
let proxied: ServeProcess
let direct: ServeProcess

const serveArgs = (name: string) => ['--port', '0', '--db', join(dir, `${name}.db`), '--rate-limit', '3']

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-proxy-'))
  ;[proxied, direct] = await Promise.all([
    startServe([...serveArgs('proxied'), '--trust-proxy', '--base-url', 'https://api.example.test']),
    startServe(serveArgs('direct')),
  ])
})
afterAll(async () => {
  await Promise.all([proxied?.stop(), direct?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

const from = (server: ServeProcess, forwardedFor: string, proto = 'https') =>
  fetch(`${server.url}/api/versions`, {
    headers: {
      'X-Forwarded-For': forwardedFor,
      'X-Forwarded-Proto': proto,
      'X-Request-Id': crypto.randomUUID(),
    },
  })

/** The access-log line of a response, from the server's JSON log on stdout. */
async function logged(server: ServeProcess, response: Response): Promise<Record<string, unknown>> {
  const id = response.headers.get('x-request-id')
  for (let i = 0; i < 100; i++) {
    const line = server
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.requestId === id)
    if (line) return line
    await Bun.sleep(20)
  }
  throw new Error(`no log line for ${id}`)
}

describe('api-server serve --trust-proxy', () => {
  it('logs the address the proxy appended to X-Forwarded-For, not the ones before it', async () => {
    const response = await from(proxied, '198.51.100.66, 203.0.113.9')
    expect(response.status).toBe(200)
    expect((await logged(proxied, response)).client).toBe('203.0.113.9')
  })

  it('counts rate limits per forwarded address: one address over its quota leaves another alone', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await from(proxied, '203.0.113.20')).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    expect((await from(proxied, '203.0.113.21')).status).toBe(200)
  })

  it('sends Strict-Transport-Security when the proxy says the client used https, not when http', async () => {
    const https = await from(proxied, '203.0.113.30', 'https')
    expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000')
    const http = await from(proxied, '203.0.113.31', 'http')
    expect(http.headers.get('strict-transport-security')).toBeNull()
  })

  it('keeps --base-url as the OAuth issuer', async () => {
    const response = await fetch(`${proxied.url}/.well-known/oauth-authorization-server`, {
      headers: { 'X-Forwarded-For': '203.0.113.40' },
    })
    expect(((await response.json()) as { issuer: string }).issuer).toBe('https://api.example.test')
  })
})

describe('api-server serve without --trust-proxy', () => {
  it('logs the peer address and ignores X-Forwarded-For and X-Forwarded-Proto', async () => {
    const response = await from(direct, '203.0.113.9', 'https')
    expect((await logged(direct, response)).client).toBe('127.0.0.1')
    expect(response.headers.get('strict-transport-security')).toBeNull()
  })

  it('gives no fresh quota for a made-up X-Forwarded-For', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await from(direct, `203.0.113.${50 + i}`)).status)
    expect(statuses.at(-1)).toBe(429)
  })
})
