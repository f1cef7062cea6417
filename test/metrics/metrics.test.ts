import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { onPostgres } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { promtool, promtoolAvailable, type Sample, samplesOf, sampleValue } from './exposition.ts'

const backend = onPostgres ? 'postgres' : 'sqlite'

describe('GET /metrics', () => {
  let server: TestServer
  let tenant: Tenant
  const scrape = async () => {
    const response = await server.fetch('/metrics')
    expect(response.status).toBe(200)
    return response.text()
  }

  beforeAll(async () => {
    server = await startTestServer()
    tenant = await server.tenant()
  })
  afterAll(() => server.stop())

  it('answers the text format, version 0.0.4, never cached', async () => {
    const response = await server.fetch('/metrics')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toContain('# TYPE api_http_requests_total counter')
  })

  it('passes promtool check metrics without a problem', async () => {
    if (!promtoolAvailable()) return
    const { code, output } = await promtool(['check', 'metrics'], await scrape())
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it('counts requests under their route template, and reads answered from the cache as hits', async () => {
    const before = samplesOf(await scrape())
    const hits = sampleValue(before, 'api_response_cache_lookups_total', { result: 'hit' })!
    const misses = sampleValue(before, 'api_response_cache_lookups_total', { result: 'miss' })!
    // The same list twice: read once, then answered from memory while nothing changed.
    expect((await tenant.fetch('/api/v2/orders')).status).toBe(200)
    expect((await tenant.fetch('/api/v2/orders')).status).toBe(200)
    expect((await tenant.fetch('/api/v2/orders/ord_01jzzzzzzzzzzzzzzzzzzzzzzz')).status).toBe(404)
    expect((await server.fetch('/no/such/path')).status).toBe(404)
    const after = samplesOf(await scrape())
    const requests = (route: string, status: string) =>
      sampleValue(after, 'api_http_requests_total', { route, method: 'GET', status })
    expect(requests('/api/v2/orders', '200')).toBe(2)
    expect(requests('/api/v2/orders/:id', '404')).toBe(1)
    expect(requests('unmatched', '404')).toBe(1)
    expect(requests('/metrics', '200')).toBeGreaterThanOrEqual(1)
    expect(
      sampleValue(after, 'api_http_request_duration_seconds_count', {
        route: '/api/v2/orders',
        method: 'GET',
        status_class: '2xx',
      }),
    ).toBe(2)
    expect(sampleValue(after, 'api_response_cache_lookups_total', { result: 'hit' })).toBe(hits + 1)
    // The first list and the record that does not exist were read from the database.
    expect(sampleValue(after, 'api_response_cache_lookups_total', { result: 'miss' })).toBe(misses + 2)
    // No raw path, id or query string is ever a label.
    expect(
      after.some((s) => Object.values(s.labels).some((v) => v.includes('ord_') || v.includes('?'))),
    ).toBe(false)
  })

  it("reports the database's statements, its connections, the event log and the webhook backlog", async () => {
    const count = (samples: Sample[], kind: string) =>
      sampleValue(samples, 'api_db_statement_duration_seconds_count', { backend, kind })!
    const before = samplesOf(await scrape())
    const product = { name: 'Counted', sku: 'CNT-1', price: 100, currency: 'EUR' }
    const created = await tenant.fetch('/api/v1/products', { method: 'POST', json: product })
    expect(created.status).toBe(201)
    const samples = samplesOf(await scrape())
    // A create is one transaction of reads and writes, appending its event to the log.
    for (const kind of ['read', 'write', 'transaction'])
      expect(count(samples, kind)).toBeGreaterThan(count(before, kind))
    expect(sampleValue(samples, 'api_event_log_position')).toBeGreaterThan(
      sampleValue(before, 'api_event_log_position')!,
    )
    const max = sampleValue(samples, 'api_db_pool_max_connections', { backend })
    expect(max).toBe(onPostgres ? 10 : 1)
    const inUse = sampleValue(samples, 'api_db_pool_connections', { backend, state: 'in_use' })!
    const idle = sampleValue(samples, 'api_db_pool_connections', { backend, state: 'idle' })!
    expect(inUse + idle).toBe(max!)
    expect(sampleValue(samples, 'api_db_pool_waiting', { backend })).toBe(0)
    expect(sampleValue(samples, 'api_webhook_event_log_lag_events')).toBe(0)
    expect(sampleValue(samples, 'api_webhook_deliveries', { state: 'pending' })).toBe(0)
    expect(sampleValue(samples, 'api_webhook_deliveries', { state: 'failed' })).toBe(0)
    expect(sampleValue(samples, 'api_webhook_delivery_attempts_total', { outcome: 'failed' })).toBe(0)
  })

  it("reports the process's memory and CPU and the build's version", async () => {
    const samples = samplesOf(await scrape())
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(sampleValue(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0)
    const info = samples.find((s) => s.name === 'api_build_info')
    expect(info?.value).toBe(1)
    expect(info?.labels.version).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('answers HEAD without a body and another method with 405 and Allow', async () => {
    const head = await server.fetch('/metrics', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    const post = await server.fetch('/metrics', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED')
  })
})

describe('GET /metrics with a low --rate-limit', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ rateLimit: 2 })
  })
  afterAll(() => server.stop())

  it('counts the 429s under their route, and is itself never refused to a scraper allowed', async () => {
    const tenant = await server.tenant()
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await tenant.fetch('/api/v2/orders')).status)
    expect(statuses).toEqual([200, 200, 429, 429])
    for (let i = 0; i < 4; i++) expect((await server.fetch('/metrics')).status).toBe(200)
    const samples = samplesOf(await (await server.fetch('/metrics')).text())
    expect(sampleValue(samples, 'api_rate_limited_requests_total')).toBe(2)
    const limited = { route: '/api/v2/orders', method: 'GET', status: '429' }
    expect(sampleValue(samples, 'api_http_requests_total', limited)).toBe(2)
  })
})
