import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../server/ops/logger.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

const TOKEN = 'scrape-4f1c2b9e7d3a6058e1b2c4d6f8a0b2c4'
const PUBLIC = '203.0.113.7'

const CASES: { name: string; headers: Record<string, string>; status: number }[] = [
  { name: 'a client on this machine, with no proxy header', headers: {}, status: 200 },
  { name: 'a public client through the proxy', headers: { 'X-Forwarded-For': PUBLIC }, status: 404 },
  {
    name: 'a public client that wrote 127.0.0.1 before the entry the proxy appended',
    headers: { 'X-Forwarded-For': `127.0.0.1, ${PUBLIC}` },
    status: 404,
  },
  {
    name: 'a public client with the metrics token',
    headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Bearer ${TOKEN}` },
    status: 200,
  },
  {
    name: 'a public client with the token, the scheme in lower case',
    headers: { 'X-Forwarded-For': PUBLIC, Authorization: `bearer ${TOKEN}` },
    status: 200,
  },
  {
    name: 'a public client with a wrong token',
    headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    status: 404,
  },
  {
    name: 'a public client with the token and more after it',
    headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Bearer ${TOKEN} ${TOKEN}` },
    status: 404,
  },
  {
    name: 'a public client with the token under another scheme',
    headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Basic ${TOKEN}` },
    status: 404,
  },
  {
    name: 'a client on this machine, through the proxy',
    headers: { 'X-Forwarded-For': '127.0.0.1' },
    status: 200,
  },
  {
    name: 'an IPv6 loopback client, through the proxy',
    headers: { 'X-Forwarded-For': '[::1]:5123' },
    status: 200,
  },
]

describe('who may read /metrics (serve --trust-proxy --metrics-token)', () => {
  let server: TestServer
  const lines: string[] = []

  beforeAll(async () => {
    server = await startTestServer({
      trustProxy: true,
      metricsToken: TOKEN,
      logger: createLogger('debug', (line) => lines.push(line)),
    })
  })
  afterAll(() => server.stop())

  for (const { name, headers, status } of CASES)
    it(`answers ${status} to ${name}`, async () => {
      const response = await server.fetch('/metrics', { headers })
      expect(response.status).toBe(status)
      if (status === 200) expect(await response.text()).toContain('api_http_requests_total')
    })

  it('refuses with the body of a path that does not exist', async () => {
    const refused = await server.fetch('/metrics', { headers: { 'X-Forwarded-For': PUBLIC } })
    const unknown = await server.fetch('/no-such-path', { headers: { 'X-Forwarded-For': PUBLIC } })
    expect(refused.headers.get('content-type')).toBe(unknown.headers.get('content-type'))
    expect(await refused.json()).toEqual(await unknown.json())
  })

  it('counts a refusal as an unknown path, not under /metrics', async () => {
    await server.fetch('/metrics', { headers: { 'X-Forwarded-For': PUBLIC } })
    const text = await (await server.fetch('/metrics')).text()
    expect(text).not.toContain('route="/metrics",method="GET",status="404"')
    expect(text).toMatch(/api_http_requests_total\{route="unmatched",method="GET",status="404"\} \d+/)
  })

  it('never writes the token, right or wrong, to the log', async () => {
    await server.fetch('/metrics', {
      headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Bearer ${TOKEN}` },
    })
    await server.fetch('/metrics', {
      headers: { 'X-Forwarded-For': PUBLIC, Authorization: `Bearer ${TOKEN}x` },
    })
    expect(lines.some((line) => line.includes('"path":"/metrics"'))).toBe(true)
    const secret = TOKEN.slice(7)
    expect(lines.filter((line) => line.includes(secret))).toEqual([])
  })
})

describe('who may read /metrics without --trust-proxy', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.stop())

  it('goes by the TCP peer: X-Forwarded-For changes nothing', async () => {
    const response = await server.fetch('/metrics', { headers: { 'X-Forwarded-For': PUBLIC } })
    expect(response.status).toBe(200)
  })
})
