import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { RateLimiter } from '../../server/http/rate-limit.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const LIMIT = 5
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ rateLimit: LIMIT })
})
afterAll(() => server.stop())

/** `"default";r=3;t=59` -> {r: 3, t: 59} (draft-ietf-httpapi-ratelimit-headers-08). */
function parseRateLimit(value: string | null) {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(value ?? '')
  if (!match) throw new Error(`not a RateLimit field: ${value}`)
  return { r: Number(match[1]), t: Number(match[2]) }
}

async function spend(send: () => Promise<Response>, times: number) {
  const answers: Response[] = []
  for (let i = 0; i < times; i++) answers.push(await send())
  return answers
}

describe('rate limits per client and user', () => {
  let acme: Tenant
  beforeAll(async () => {
    acme = await server.tenant()
  })

  it('every response carries RateLimit-Policy and the current RateLimit, counting down', async () => {
    const other = await server.tenant()
    const answers = await spend(() => other.fetch('/api/v2/orders'), 3)
    for (const response of answers) {
      expect(response.status).toBe(200)
      expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`)
    }
    expect(answers.map((r) => parseRateLimit(r.headers.get('ratelimit')).r)).toEqual([4, 3, 2])
    for (const r of answers) expect(parseRateLimit(r.headers.get('ratelimit')).t).toBeWithin(1, 61)
  })

  it('past the quota: 429 RATE_LIMITED with Retry-After and RateLimit r=0, on every route', async () => {
    await spend(() => acme.fetch('/api/v1/orders'), LIMIT)
    for (const path of ['/api/v1/orders', '/api/v2/users', '/graphql?query=%7B__typename%7D']) {
      const response = await acme.fetch(path)
      expect(response.status).toBe(429)
      const body = (await response.json()) as { error: { code: string; message: string; details: unknown[] } }
      expect(body.error.code).toBe('RATE_LIMITED')
      const retry = Number(response.headers.get('retry-after'))
      expect(retry).toBeWithin(1, 61)
      expect(parseRateLimit(response.headers.get('ratelimit'))).toEqual({ r: 0, t: retry })
    }
  })

  it('another client has its own quota', async () => {
    const other = await server.tenant()
    expect((await other.fetch('/api/v1/orders')).status).toBe(200)
  })
})

describe('rate limits per address where there is no (valid) token', () => {
  it('counts the token endpoint, the authorize page and made-up tokens against the address', async () => {
    const limited = await startTestServer({ rateLimit: LIMIT })
    try {
      const sends = [
        () =>
          limited.fetch('/oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) }),
        () => limited.fetch('/oauth/authorize?client_id=nobody'),
        () => limited.fetch('/api/v1/orders', { headers: { Authorization: 'Bearer made.up.token' } }),
        () => limited.fetch('/api/v1/orders'),
        () => limited.fetch('/docs'),
      ]
      const answers = []
      for (const send of sends) answers.push(await send())
      expect(answers.map((r) => parseRateLimit(r.headers.get('ratelimit')).r)).toEqual([4, 3, 2, 1, 0])
      const over = await limited.fetch('/oauth/token', {
        method: 'POST',
        body: 'grant_type=client_credentials',
      })
      expect(over.status).toBe(429)
      expect(((await over.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED')
      // Health probes are never throttled, though they say where the address stands.
      const health = await limited.fetch('/healthz')
      expect(health.status).toBe(200)
      expect(parseRateLimit(health.headers.get('ratelimit')).r).toBe(0)
      expect((await limited.fetch('/readyz')).status).toBe(200)
    } finally {
      await limited.stop()
    }
  })

  it('--rate-limit 0 turns limits (and their headers) off', async () => {
    const open = await startTestServer({ rateLimit: 0 })
    try {
      const answers = await spend(() => open.fetch('/healthz'), 3)
      for (const r of answers) expect(r.headers.get('ratelimit')).toBeNull()
    } finally {
      await open.stop()
    }
  })
})

describe('RateLimiter', () => {
  it('starts a new window after windowS seconds', () => {
    let now = 0
    const limiter = new RateLimiter(2, () => now, 60)
    expect([limiter.take('k').allowed, limiter.take('k').allowed, limiter.take('k').allowed]).toEqual([
      true,
      true,
      false,
    ])
    now = 59_500
    expect(limiter.take('k')).toEqual({ allowed: false, remaining: 0, resetS: 1 })
    now = 60_000
    expect(limiter.take('k')).toEqual({ allowed: true, remaining: 1, resetS: 60 })
    expect(limiter.peek('other')).toEqual({ allowed: true, remaining: 2, resetS: 60 })
  })
})
