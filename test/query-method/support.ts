import { expect } from 'bun:test'
import { create, createUser, type Entity, readJson } from '../rest/fixtures.ts'
import type { Tenant, TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

export const FORM = 'application/x-www-form-urlencoded'
export const JSON_TYPE = 'application/json'
export const SQL = 'application/sql'
export const JSONPATH = 'application/jsonpath'
export const ACCEPT_QUERY =
  '"application/x-www-form-urlencoded", "application/json", "application/sql", "application/jsonpath"'

export interface Page<T = Entity> {
  data: T[]
  pagination: { limit: number; hasMore: boolean; nextCursor?: string | null; next?: string | null }
  filters?: Record<string, unknown>
}

/** Sends a QUERY with this body and Content-Type (none when `type` is null). */
export function query(
  tenant: Tenant,
  path: string,
  type: string | null,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const all: Record<string, string> = { ...headers }
  if (type !== null) all['Content-Type'] = type
  return tenant.fetch(path, { method: 'QUERY', headers: all, body })
}

/** QUERY that must answer 200; returns the page. */
export async function queryPage<T = Entity>(
  tenant: Tenant,
  path: string,
  type: string,
  body: string,
): Promise<Page<T>> {
  const response = await query(tenant, path, type, body)
  if (response.status !== 200)
    throw new Error(`QUERY ${path} ${body}: ${response.status} ${await response.text()}`)
  return readJson<Page<T>>(response)
}

/** GET that must answer 200; returns the page. */
export async function getPage(tenant: Tenant, path: string): Promise<Page> {
  const response = await tenant.fetch(path)
  expect(response.status).toBe(200)
  return readJson<Page>(response)
}

const ORDER_ROWS = [
  { status: 'paid', amount: 100, currency: 'EUR' },
  { status: 'pending', amount: 250, currency: 'USD' },
  { status: 'paid', amount: 400, currency: 'USD' },
  { status: 'shipped', amount: 50, currency: 'EUR' },
  { status: 'cancelled', amount: 999, currency: 'GBP' },
  { status: 'paid', amount: 250, currency: 'EUR' },
  { status: 'delivered', amount: 0, currency: 'EUR' },
] as const

/** A user with the orders of ORDER_ROWS, created oldest first; returns them newest first (the default order). */
export async function seedOrders(tenant: Tenant): Promise<{ userId: string; orders: Entity[] }> {
  const user = await createUser(tenant)
  const orders: Entity[] = []
  for (const row of ORDER_ROWS)
    orders.push(await create(tenant, '/api/v1/orders', { userId: user.id, ...row }))
  return { userId: user.id, orders: orders.reverse() }
}

export const ids = (page: { data: { id?: unknown }[] }) => page.data.map((e) => e.id)

/** A client of an existing organization with these scopes, and a token for it. */
export async function clientOf(server: TestServer, orgId: string, scope: string[]): Promise<Tenant> {
  const { client, secret } = await server.store.clients.create({
    name: `limited ${scope.join(' ')}`,
    orgId,
    public: false,
    scope,
  })
  const token = await clientToken(server.url, { id: client.id, secret: secret! })
  return {
    orgId,
    clientId: client.id,
    clientSecret: secret!,
    token,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers)
      headers.set('Authorization', `Bearer ${token}`)
      return server.fetch(path, { ...init, headers })
    },
  }
}
