import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { samplesOf } from './exposition.ts'

const REQUESTS = 1_000
const CONCURRENCY = 20

/** Every series of the request families: a name and its labels, one string each. */
function requestSeries(text: string): Set<string> {
  const series = samplesOf(text)
    .filter((s) => s.name.startsWith('api_http_'))
    .map((s) => `${s.name}${JSON.stringify(s.labels)}`)
  return new Set(series)
}

describe('the labels of /metrics are bounded', () => {
  let server: TestServer
  let tenant: Tenant
  const scrape = async () => requestSeries(await (await server.fetch('/metrics')).text())

  beforeAll(async () => {
    server = await startTestServer()
    tenant = await server.tenant()
  })
  afterAll(() => server.stop())

  it(`adds no series for ${REQUESTS} requests to distinct ids and ${REQUESTS} to distinct unknown paths`, async () => {
    const send = (i: number) => [
      tenant.fetch(`/api/v2/orders/ord_${String(i).padStart(26, '0')}?fields=id`),
      server.fetch(`/unknown-${i}/${crypto.randomUUID()}?q=${i}`),
    ]
    // One of each first, and a scrape (itself counted), so that every series exists.
    await Promise.all(send(0))
    await scrape()
    const before = await scrape()
    for (let i = 1; i <= REQUESTS; i += CONCURRENCY) {
      const batch = Array.from({ length: CONCURRENCY }, (_, k) => send(i + k)).flat()
      for (const response of await Promise.all(batch)) {
        expect(response.status).toBe(404)
        await response.body?.cancel()
      }
    }
    const after = await scrape()
    expect([...after].filter((s) => !before.has(s))).toEqual([])
    expect(after.size).toBe(before.size)
  }, 60_000)
})
