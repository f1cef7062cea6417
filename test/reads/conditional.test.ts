import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { entityTag } from '../../server/http/etag.ts'
import {
  createLineItem,
  createOrder,
  createProduct,
  createUser,
  type Entity,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { nextSecond } from './helpers.ts'

let server: TestServer
let acme: Tenant
let order: Entity
let item: Entity

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  order = await createOrder(acme)
  item = await createLineItem(acme, order.id)
  await createLineItem(acme, order.id)
  await createProduct(acme, { name: 'Aurora lamp' })
})
afterAll(() => server.stop())

const httpDate = (iso: string) => new Date(iso).toUTCString()

/** When the organization last changed one of `resources`, as the event log says. */
async function lastEvent(orgId: string, resources: string[]): Promise<string> {
  const marks = resources.map(() => '?').join(', ')
  const row = (await server.sql.get(
    `SELECT max(created_at) AS at FROM events WHERE org_id = ? AND resource IN (${marks})`,
    orgId,
    ...resources,
  )) as { at: string }
  return row.at
}

const subjects: { name: string; path: () => string; lastModified: () => Promise<string> }[] = [
  {
    name: 'a singleton',
    path: () => `/api/v1/orders/${order.id}`,
    lastModified: async () => order.updatedAt as string,
  },
  {
    name: 'a nested singleton',
    path: () => `/api/v1/orders/${order.id}/line-items/${item.id}`,
    lastModified: async () => item.updatedAt as string,
  },
  {
    name: 'a collection',
    path: () => '/api/v1/orders',
    lastModified: () => lastEvent(acme.orgId, ['orders']),
  },
  {
    name: 'a nested collection',
    path: () => `/api/v1/orders/${order.id}/line-items`,
    lastModified: () => lastEvent(acme.orgId, ['line-items']),
  },
  {
    name: '/api/v1/search',
    path: () => '/api/v1/search?q=aurora',
    lastModified: () => lastEvent(acme.orgId, ['users', 'addresses', 'products', 'posts', 'comments']),
  },
]

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const response = await acme.fetch(path, { method, headers })
  return { response, text: await response.text() }
}

for (const subject of subjects) {
  describe(`GET ${subject.name}`, () => {
    it('answers a strong ETag (the hash of the body), Last-Modified and private revalidation', async () => {
      const { response, text } = await get(subject.path())
      expect(response.status).toBe(200)
      const tag = response.headers.get('etag')!
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/)
      expect(tag).toBe(entityTag(text))
      expect(response.headers.get('last-modified')).toBe(httpDate(await subject.lastModified()))
      expect(response.headers.get('cache-control')).toBe('private, no-cache')
      expect(response.headers.get('vary')).toContain('Authorization')
      expect((await get(subject.path())).response.headers.get('etag')).toBe(tag)
    })

    const matching: [label: string, header: (tag: string) => string][] = [
      ['the current tag', (tag) => tag],
      ['the weak form of the current tag', (tag) => `W/${tag}`],
      ['a list holding the current tag', (tag) => `"nope", ${tag} , "other"`],
      ['*', () => '*'],
    ]
    for (const [label, header] of matching) {
      it(`answers 304 with no body to If-None-Match: ${label}`, async () => {
        const { response: fresh } = await get(subject.path())
        const tag = fresh.headers.get('etag')!
        const { response, text } = await get(subject.path(), { 'If-None-Match': header(tag) })
        expect(response.status).toBe(304)
        expect(text).toBe('')
        expect(response.headers.get('etag')).toBe(tag)
        expect(response.headers.get('last-modified')).toBe(fresh.headers.get('last-modified'))
      })
    }

    const conditions: [
      label: string,
      headers: (lastModified: string) => Record<string, string>,
      status: number,
    ][] = [
      ['If-None-Match with another tag', () => ({ 'If-None-Match': '"nope", W/"other"' }), 200],
      ['If-Modified-Since the Last-Modified', (lm) => ({ 'If-Modified-Since': lm }), 304],
      ['If-Modified-Since an hour later', (lm) => ({ 'If-Modified-Since': shift(lm, 3600) }), 304],
      ['If-Modified-Since a second earlier', (lm) => ({ 'If-Modified-Since': shift(lm, -1) }), 200],
      ['an unreadable If-Modified-Since', () => ({ 'If-Modified-Since': 'last tuesday' }), 200],
      [
        'If-None-Match of another tag, which outweighs If-Modified-Since',
        (lm) => ({ 'If-None-Match': '"nope"', 'If-Modified-Since': shift(lm, 3600) }),
        200,
      ],
    ]
    for (const [label, headers, status] of conditions) {
      it(`answers ${status} to ${label}`, async () => {
        const lastModified = (await get(subject.path())).response.headers.get('last-modified')!
        const { response, text } = await get(subject.path(), headers(lastModified))
        expect(response.status).toBe(status)
        expect(text === '').toBe(status === 304)
      })
    }

    it('answers HEAD with the status and headers of GET and no body', async () => {
      const head = await get(subject.path(), {}, 'HEAD')
      const full = await get(subject.path())
      expect(head.text).toBe('')
      expect(head.response.status).toBe(full.response.status)
      expect(headersOf(head.response)).toEqual(headersOf(full.response))
      expect(head.response.headers.get('content-length')).toBe(String(Buffer.byteLength(full.text)))
      expect(head.response.headers.get('date')).toBeString()
      const tag = full.response.headers.get('etag')!
      const head304 = await get(subject.path(), { 'If-None-Match': tag }, 'HEAD')
      const get304 = await get(subject.path(), { 'If-None-Match': tag })
      expect([head304.response.status, get304.response.status]).toEqual([304, 304])
      expect(headersOf(head304.response)).toEqual(headersOf(get304.response))
    })
  })
}

const shift = (date: string, seconds: number) => new Date(Date.parse(date) + seconds * 1000).toUTCString()
/** Every header but those that describe each answer: Date, the request id, the rate-limit state. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'ratelimit'])
const headersOf = (response: Response) => [...response.headers].filter(([name]) => !PER_ANSWER.has(name))

describe('Last-Modified of a collection', () => {
  it('is the epoch before anything happened, and moves with every create, update and delete', async () => {
    const fresh = await server.tenant()
    const userId = (await createUser(fresh)).id
    const look = async (path: string) => {
      const response = await fresh.fetch(path)
      expect(response.status).toBe(200)
      return { lastModified: response.headers.get('last-modified')!, tag: response.headers.get('etag')! }
    }
    const empty = await look('/api/v1/orders')
    expect(empty.lastModified).toBe('Thu, 01 Jan 1970 00:00:00 GMT')
    const seen = [empty]
    const steps: [string, () => Promise<Response>][] = [
      [
        'create',
        () => fresh.fetch('/api/v1/orders', { method: 'POST', json: { userId, amount: 1, currency: 'EUR' } }),
      ],
      ['update', () => fresh.fetch(`/api/v1/orders/${orderId}`, { method: 'PATCH', json: { amount: 2 } })],
      ['delete', () => fresh.fetch(`/api/v1/orders/${orderId}`, { method: 'DELETE' })],
    ]
    let orderId = ''
    for (const [step, run] of steps) {
      await nextSecond()
      const response = await run()
      expect(response.status).toBeLessThan(300)
      if (step === 'create') orderId = (await readJson(response)).id
      const now = await look('/api/v1/orders')
      expect(Date.parse(now.lastModified)).toBeGreaterThan(Date.parse(seen.at(-1)!.lastModified))
      expect(now.lastModified).toBe(httpDate(await lastEvent(fresh.orgId, ['orders'])))
      const stale = await fresh.fetch('/api/v1/orders', {
        headers: { 'If-Modified-Since': seen.at(-1)!.lastModified },
      })
      expect(stale.status).toBe(200)
      seen.push(now)
    }
    // After the delete the list is empty again: the same bytes, so the same tag, but a later date.
    expect(seen.at(-1)!.tag).toBe(empty.tag)
  })

  it('moves for a nested collection when a child is created', async () => {
    const before = (await acme.fetch(`/api/v1/orders/${order.id}/line-items`)).headers.get('last-modified')!
    await nextSecond()
    await createLineItem(acme, order.id)
    const after = (await acme.fetch(`/api/v1/orders/${order.id}/line-items`)).headers.get('last-modified')!
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before))
  })
})
