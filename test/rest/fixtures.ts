import { expect } from 'bun:test'
import type { Tenant } from '../support/server.ts'

/** A record as the API returns it. */
export type Entity = { id: string } & Record<string, unknown>

export interface ErrorBody {
  error: { code: string; message: string; details: { field: string; message: string }[] }
}

export interface ListBody {
  data: Entity[]
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null; next: string | null }
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The TypeID shape of an id with this prefix (contract: prefix, `_`, 26 Crockford base32 chars). */
export const idPattern = (prefix: string) => new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`)

let serial = 0
/** A value no other call returns, for unique fields (email, sku). */
export const unique = (stem: string) => `${stem}-${++serial}`

export async function readJson<T = Entity>(response: Response): Promise<T> {
  return (await response.json()) as T
}

/** POSTs and insists on 201, returning the created record. */
export async function create(tenant: Tenant, path: string, json: Record<string, unknown>): Promise<Entity> {
  const response = await tenant.fetch(path, { method: 'POST', json })
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
  return readJson(response)
}

export const userBody = () => ({ name: 'Ann', email: `${unique('ann')}@example.com` })
export const productBody = () => ({ name: 'Mug', sku: unique('MUG'), price: 1299, currency: 'EUR' })

export const createUser = (t: Tenant, extra: Record<string, unknown> = {}) =>
  create(t, '/api/v1/users', { ...userBody(), ...extra })
export const createProduct = (t: Tenant, extra: Record<string, unknown> = {}) =>
  create(t, '/api/v1/products', { ...productBody(), ...extra })

export async function createOrder(t: Tenant, extra: Record<string, unknown> = {}): Promise<Entity> {
  const userId = extra.userId ?? (await createUser(t)).id
  return create(t, '/api/v1/orders', { userId, amount: 2500, currency: 'EUR', ...extra })
}

export async function createPost(t: Tenant, extra: Record<string, unknown> = {}): Promise<Entity> {
  const authorId = extra.authorId ?? (await createUser(t)).id
  return create(t, '/api/v1/posts', { authorId, title: 'Hello', ...extra })
}

export async function createLineItem(t: Tenant, orderId: string, extra: Record<string, unknown> = {}) {
  const productId = extra.productId ?? (await createProduct(t)).id
  return create(t, `/api/v1/orders/${orderId}/line-items`, {
    productId,
    quantity: 2,
    unitPrice: 500,
    ...extra,
  })
}

export async function createComment(t: Tenant, postId: string, extra: Record<string, unknown> = {}) {
  const authorId = extra.authorId ?? (await createUser(t)).id
  return create(t, `/api/v1/posts/${postId}/comments`, { authorId, text: 'Nice', ...extra })
}

export const addressBody = () => ({ line1: '1 Main St', city: 'Berlin', country: 'DE' })

export async function createAddress(t: Tenant, userId: string, extra: Record<string, unknown> = {}) {
  return create(t, `/api/v1/users/${userId}/addresses`, { ...addressBody(), ...extra })
}

/** Asserts the contract's error body and returns it; `fields` are the details' fields, in order. */
export async function expectError(
  response: Response,
  status: number,
  code: string,
  fields?: string[],
): Promise<ErrorBody> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toStartWith('application/json')
  const body = await readJson<ErrorBody>(response)
  expect(body.error.code).toBe(code)
  expect(body.error.message).toBeString()
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(Array.isArray(body.error.details)).toBe(true)
  if (fields) expect(body.error.details.map((d) => d.field)).toEqual(fields)
  return body
}

/** The events of a tenant, newest first, as the API lists them. */
export async function listEvents(t: Tenant, limit = 100): Promise<Entity[]> {
  const response = await t.fetch(`/api/v1/events?limit=${limit}`)
  expect(response.status).toBe(200)
  return (await readJson<ListBody>(response)).data
}

/**
 * Asserts the `Allow` header names `methods` and not `refused`. Membership, not equality: a
 * collection's list grows when it learns a method (QUERY), and that must not break these tests.
 */
export function expectAllow(response: Response, methods: string[], refused?: string) {
  const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim())
  expect(allow).toEqual(expect.arrayContaining(methods))
  if (refused) expect(allow).not.toContain(refused)
}

/**
 * A webhook endpoint on a loopback URL nobody answers (the test server must allow http there:
 * `startTestServer({ webhooks: { allowHttp: true } })`). The answer carries its secret, once.
 */
export const createWebhookEndpoint = (t: Tenant, extra: Record<string, unknown> = {}) =>
  create(t, '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', description: 'test', ...extra })

/**
 * The first delivery of an endpoint, once the worker has queued one (after an event of its
 * organization), and has brought it to `status` when given.
 */
export async function firstDelivery(
  t: Tenant,
  endpointId: string,
  status?: string,
  timeoutMs = 5_000,
): Promise<Entity> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await t.fetch(`/api/v1/webhook-endpoints/${endpointId}/deliveries`)
    const { data } = (await response.json()) as { data: Entity[] }
    if (data[0] && (status === undefined || data[0].status === status)) return data[0]
    if (Date.now() > deadline) throw new Error(`no delivery of ${endpointId} after ${timeoutMs} ms`)
    await Bun.sleep(25)
  }
}
