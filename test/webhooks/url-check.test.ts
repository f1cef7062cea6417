/**
 * A webhook endpoint's URL is checked (its host looked up) before the write's transaction opens
 * (docs/architecture.md, "Writes in two phases"): a slow name server holds up that request only,
 * never another write. On SQLite a transaction holds the one writer lock, so this is where a
 * lookup inside it would show; the same test runs on PostgreSQL (`npm run test:postgres`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Resolver, resolveTarget, TargetRefused } from '../../server/webhooks/target.ts'
import { createUser, expectError, productBody, readJson } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/** How long the slow host takes to resolve: far above what a write takes on a loaded machine. */
const SLOW_MS = 2_000
/** The server's limit on a lookup, above the slow host's time. */
const LOOKUP_TIMEOUT_MS = SLOW_MS + 1_000
/** A public address (TEST-NET would be refused as reserved); no delivery is ever made to it. */
const PUBLIC = ['93.184.216.34']

const lookups: string[] = []
let slowLookupStarted = Promise.withResolvers<void>()

async function resolve(host: string): Promise<string[]> {
  lookups.push(host)
  if (host === 'slow.example') {
    slowLookupStarted.resolve()
    await Bun.sleep(SLOW_MS)
  }
  // A name server that never answers.
  if (host === 'stuck.example') await new Promise(() => {})
  return PUBLIC
}

let server: TestServer
let tenant: Tenant

beforeAll(async () => {
  server = await startTestServer({ webhooks: { resolve, resolveTimeoutMs: LOOKUP_TIMEOUT_MS } })
  tenant = await server.tenant()
})
afterAll(() => server.stop())

let keys = 0
/** A disabled endpoint: it is checked and stored like any other, and never delivers to PUBLIC. */
const postEndpoint = (host: string, key = `url-check-${Date.now()}-${++keys}`) =>
  tenant.fetch('/api/v1/webhook-endpoints', {
    method: 'POST',
    json: { url: `https://${host}/hook`, enabled: false },
    headers: { 'Idempotency-Key': key },
  })

describe('POST /api/v1/webhook-endpoints with Idempotency-Key while the host resolves slowly', () => {
  it('holds up no other write: products and orders are created meanwhile, each well under the lookup', async () => {
    const userId = (await createUser(tenant)).id
    slowLookupStarted = Promise.withResolvers<void>()
    const started = performance.now()
    let endpointDoneAt = 0
    const endpoint = postEndpoint('slow.example').then((response) => {
      endpointDoneAt = performance.now()
      return response
    })
    await slowLookupStarted.promise

    const writes: { status: number; ms: number; doneAt: number }[] = []
    const timed = async (path: string, json: unknown, headers: Record<string, string> = {}) => {
      const at = performance.now()
      const response = await tenant.fetch(path, { method: 'POST', json, headers })
      writes.push({ status: response.status, ms: performance.now() - at, doneAt: performance.now() })
    }
    await timed('/api/v1/products', productBody())
    await timed('/api/v1/orders', { userId, amount: 2500, currency: 'EUR' })
    // Another idempotent write, under its own key, does not wait for the endpoint's key either.
    await timed('/api/v1/products', productBody(), { 'Idempotency-Key': `other-${Date.now()}` })
    await timed('/api/v1/orders', { userId, amount: 900, currency: 'EUR' })

    const response = await endpoint
    expect(response.status).toBe(201)
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS - 50)
    expect(writes.map((w) => w.status)).toEqual([201, 201, 201, 201])
    for (const write of writes) {
      expect(write.ms).toBeLessThan(SLOW_MS / 2)
      expect(write.doneAt).toBeLessThan(endpointDoneAt)
    }
  })

  it('replays the kept answer without looking the host up again', async () => {
    const key = `replay-${Date.now()}`
    const first = await postEndpoint('slow.example', key)
    expect(first.status).toBe(201)
    const created = await readJson(first)
    const before = lookups.length
    const at = performance.now()
    const again = await postEndpoint('slow.example', key)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await readJson(again)).id).toBe(created.id)
    expect(lookups.length).toBe(before)
    expect(performance.now() - at).toBeLessThan(SLOW_MS / 2)
  })
})

describe('POST /api/v1/webhook-endpoints whose host does not answer', () => {
  it('answers 422 naming url once the lookup has waited its limit, creates nothing and keeps no key', async () => {
    const endpoints = await server.sql.count('webhook_endpoints', tenant.orgId)
    const key = `stuck-${Date.now()}`
    const at = performance.now()
    const response = await postEndpoint('stuck.example', key)
    const body = await expectError(response, 422, 'VALIDATION_ERROR', ['url'])
    expect(body.error.details[0]!.message).toContain('stuck.example')
    expect(body.error.details[0]!.message).toContain('did not resolve within')
    expect(performance.now() - at).toBeGreaterThanOrEqual(LOOKUP_TIMEOUT_MS - 20)
    expect(performance.now() - at).toBeLessThan(LOOKUP_TIMEOUT_MS + 1_500)
    expect(await server.sql.count('webhook_endpoints', tenant.orgId)).toBe(endpoints)
    // The key stayed free: the same key with a host that resolves creates the endpoint.
    const retried = await postEndpoint('fine.example', key)
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })
})

describe('resolveTarget', () => {
  it.each([
    ['never answers', () => new Promise<string[]>(() => {})],
    ['answers after the limit', () => Bun.sleep(200).then(() => PUBLIC)],
  ])('refuses a host whose name server %s once the limit has passed', async (_, slow) => {
    const refused = await resolveTarget('https://late.example/hook', false, slow, 50).catch((e) => e)
    expect(refused).toBeInstanceOf(TargetRefused)
    expect(refused.message).toBe('its host late.example did not resolve within 0.05 s')
  })

  it('refuses a host whose lookup fails, also when the resolver throws at once', async () => {
    const throws = (() => {
      throw new Error('ENOTFOUND')
    }) as Resolver
    const refused = await resolveTarget('https://gone.example/hook', false, throws).catch((e) => e)
    expect(refused).toBeInstanceOf(TargetRefused)
    expect(refused.message).toBe('its host gone.example does not resolve')
  })
})
