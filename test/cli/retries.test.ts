/**
 * Retries, timeouts and unreachable servers. The real server never answers 429/503 on demand nor
 * hangs, so these tests talk to a tiny local stub that answers from a script.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import { exampleDocument } from './example-document.ts'
import { BUN, CLI, removeTempDirs, runCli, secret, tempDir } from './harness.ts'

type Step = () => Response | Promise<Response>
let script: Step[] = []
let stub: ReturnType<typeof Bun.serve>
let env: Record<string, string>

const EMPTY_PAGE = { data: [], pagination: { hasMore: false, next: null } }
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    Response.json(body, { status, headers })
const busy = (status: 429 | 503, headers: Record<string, string> = {}) =>
  json(
    status,
    { error: { code: status === 429 ? 'RATE_LIMITED' : 'INTERNAL', message: 'Slow down.', details: [] } },
    headers,
  )
const hang: Step = () => new Promise<Response>(() => {})

beforeAll(() => {
  stub = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // The document the CLI learns the collections from comes first, outside the script.
    fetch: (request) => exampleDocument(request) ?? (script.shift() ?? json(200, EMPTY_PAGE))(),
  })
  env = { API_URL: stub.url.origin, API_TOKEN: 'stub-token-0123456789', XDG_CONFIG_HOME: tempDir() }
  secret(env.API_TOKEN)
})
beforeEach(() => {
  script = []
})
afterAll(() => {
  stub.stop(true)
  removeTempDirs()
})

describe('retries on 429 and 503', () => {
  const now = Date.parse('Sun, 01 Mar 2026 10:00:00 GMT')
  const cases: { name: string; first: Step; wait: (ms: number) => boolean }[] = [
    { name: '429 with Retry-After: 2', first: busy(429, { 'Retry-After': '2' }), wait: (ms) => ms === 2000 },
    { name: '503 with Retry-After: 1', first: busy(503, { 'Retry-After': '1' }), wait: (ms) => ms === 1000 },
    {
      name: '503 with Retry-After as an HTTP date 3 s ahead',
      first: busy(503, { 'Retry-After': 'Sun, 01 Mar 2026 10:00:03 GMT' }),
      wait: (ms) => ms === 3000,
    },
    { name: '429 without Retry-After (backoff)', first: busy(429), wait: (ms) => ms >= 500 && ms < 750 },
  ]
  for (const { name, first, wait } of cases) {
    it(`waits as told after ${name}, then succeeds`, async () => {
      script = [first, json(200, { data: [{ id: 'ord_1' }], pagination: { hasMore: false } })]
      const run = await runCli(['list', 'orders'], { env, now: () => now })
      expect(run.code).toBe(0)
      expect(run.requests).toHaveLength(2)
      expect(run.sleeps).toHaveLength(1)
      expect(wait(run.sleeps[0]!)).toBe(true)
      expect(JSON.parse(run.stdout)).toEqual([{ id: 'ord_1' }])
    })
  }

  it('backs off exponentially, gives up after three retries and shows the last error (exit 1)', async () => {
    script = [busy(429), busy(429), busy(429), busy(429)]
    const run = await runCli(['get', 'orders', 'ord_1'], { env })
    expect(run.code).toBe(1)
    expect(run.requests).toHaveLength(4)
    expect(run.sleeps.map((ms) => Math.floor(ms / 250) * 250)).toEqual([500, 1000, 2000])
    expect(run.stderr).toContain('RATE_LIMITED (429): Slow down.')
    expect(run.stdout).toBe('')
  })

  it('does not wait longer than a minute: Retry-After: 3600 returns the error at once', async () => {
    script = [busy(503, { 'Retry-After': '3600' })]
    const run = await runCli(['get', 'orders', 'ord_1'], { env })
    expect(run.code).toBe(1)
    expect(run.requests).toHaveLength(1)
    expect(run.sleeps).toEqual([])
  })

  it('retries api create with the same Idempotency-Key, so the record is created once', async () => {
    script = [busy(503, { 'Retry-After': '1' }), json(201, { id: 'ord_new', amount: 5 })]
    const run = await runCli(['create', 'orders', 'amount:=5'], { env })
    expect(run.code).toBe(0)
    expect(run.requests.map((r) => r.method)).toEqual(['POST', 'POST'])
    const keys = run.requests.map((r) => r.headers.get('idempotency-key'))
    expect(keys[0]).toBeTruthy()
    expect(keys[1]).toBe(keys[0]!)
    expect(JSON.parse(run.stdout)).toEqual({ id: 'ord_new', amount: 5 })
  })

  it('does not retry a POST without an Idempotency-Key (it might run twice)', async () => {
    script = [busy(503, { 'Retry-After': '1' })]
    const run = await runCli(['request', 'POST', '/api/v2/orders', 'amount:=5'], { env })
    expect(run.code).toBe(1)
    expect(run.requests).toHaveLength(1)
    expect(run.sleeps).toEqual([])
  })

  for (const stderrIsTTY of [true, false]) {
    it(`${stderrIsTTY ? 'says' : 'does not say'} that it is retrying when stderr ${stderrIsTTY ? 'is' : 'is not'} a terminal`, async () => {
      script = [busy(429, { 'Retry-After': '2' })]
      const run = await runCli(['list', 'orders'], { env, stderrIsTTY })
      expect(run.stderr).toBe(stderrIsTTY ? 'server busy (429); retrying in 2 s\n' : '')
      expect(run.code).toBe(0)
    })
  }
})

describe('timeouts and unreachable servers', () => {
  it('gives up after --timeout seconds per attempt and exits 3', async () => {
    script = [hang, hang, hang, hang]
    const run = await runCli(['get', 'orders', 'ord_1', '--timeout', '0.2'], { env })
    expect(run.code).toBe(3)
    expect(run.requests).toHaveLength(4)
    expect(run.stderr).toContain(`could not reach ${env.API_URL} (no answer within 0.2 s)`)
    expect(run.stdout).toBe('')
  })

  it('retries a GET that timed out and succeeds when the server answers', async () => {
    script = [hang, json(200, { id: 'ord_1' })]
    const run = await runCli(['get', 'orders', 'ord_1', '--timeout', '0.2'], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ id: 'ord_1' })
  })

  it('rejects a --timeout that is not a positive number (exit 2)', async () => {
    const run = await runCli(['get', 'orders', 'ord_1', '--timeout', 'soon'], { env })
    expect(run.code).toBe(2)
    expect(run.requests).toHaveLength(0)
  })

  it('exits 3 with a clear message when nothing listens at API_URL', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const url = closed.url.origin
    closed.stop(true)
    const run = await runCli(['list', 'orders'], { env: { ...env, API_URL: url } })
    expect(run.code).toBe(3)
    // The last wait (2 s and more) is announced; the failure is the last line.
    expect(run.stderr).toContain(`could not reach ${url} (`)
    expect(run.stderr.trimEnd().split('\n').at(-1)).toStartWith(`api: could not reach ${url} (`)
    expect(run.stdout).toBe('')
  })

  it('stops at Ctrl-C while waiting for the server (SIGINT is not swallowed)', async () => {
    script = [hang]
    const child = Bun.spawn([BUN, CLI, 'list', 'orders'], {
      env: { PATH: process.env.PATH, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    await Bun.sleep(500)
    child.kill('SIGINT')
    const outcome = await Promise.race([child.exited, Bun.sleep(3000).then(() => 'still running')])
    child.kill('SIGKILL')
    expect(outcome).not.toBe('still running')
  })
})
