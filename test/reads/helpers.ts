import { expect } from 'bun:test'
import { type Entity, expectError, readJson } from '../rest/fixtures.ts'
import type { Tenant, TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

/** A collection answer: data, pagination and, when filtered, the echo of the filters. */
export interface Listing<T = Entity> {
  data: T[]
  pagination: Record<string, unknown> & { limit: number; hasMore: boolean; next?: string | null }
  filters?: Record<string, unknown>
}

/** A hit of GET /api/v1/search. */
export interface Hit {
  collection: string
  record: Entity
}

/** GETs `path` and insists on 200. */
export async function list<T = Entity>(t: Tenant, path: string): Promise<Listing<T>> {
  const response = await t.fetch(path)
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
  return readJson<Listing<T>>(response)
}

/** Follows `pagination.next` from `path` to the last page; every page must be a 200. */
export async function followNext<T = Entity>(
  t: Tenant,
  path: string,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = []
  let pages = 0
  let next: string | null | undefined = path
  while (next) {
    const body: Listing<T> = await list<T>(t, next)
    pages += 1
    if (pages > 200) throw new Error(`more than 200 pages from ${path}`)
    items.push(...body.data)
    expect(body.pagination.hasMore).toBe(Boolean(body.pagination.next))
    next = body.pagination.next
  }
  return { items, pages }
}

/** Pages through with page=1,2,... until hasMore is false. */
export async function walkPages<T = Entity>(t: Tenant, path: string, perPage: number): Promise<T[]> {
  const items: T[] = []
  for (let page = 1; page <= 200; page++) {
    const joiner = path.includes('?') ? '&' : '?'
    const body = await list<T>(t, `${path}${joiner}page=${page}&per_page=${perPage}`)
    items.push(...body.data)
    if (!body.pagination.hasMore) return items
  }
  throw new Error(`more than 200 pages from ${path}`)
}

/** 400 BAD_REQUEST whose details name exactly `fields`. */
export async function expectBadParam(response: Response, ...fields: string[]) {
  return expectError(response, 400, 'BAD_REQUEST', fields)
}

interface SortKey {
  field: string
  descending: boolean
}

/** `-amount,status:asc` as keys; the test's own reading of the documented grammar. */
export function sortKeys(sort: string): SortKey[] {
  return sort.split(',').map((part) => {
    const [name, direction] = part.replace(/^-/, '').split(':')
    const field = name!.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    return { field, descending: part.startsWith('-') || direction === 'desc' }
  })
}

const compareValues = (a: unknown, b: unknown): number => {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  // SQLite compares text by bytes; for the ASCII test data that is code-unit order.
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
}

/**
 * The order the contract promises: the keys, then the id in the direction of the last key, so
 * that equal values still have one stable order.
 */
export function sortedBy<T extends Entity>(records: readonly T[], keys: SortKey[]): T[] {
  const all = [...keys, { field: 'id', descending: keys.at(-1)?.descending ?? true }]
  return [...records].sort((a, b) => {
    for (const { field, descending } of all) {
      const order = compareValues(a[field], b[field])
      if (order !== 0) return descending ? -order : order
    }
    return 0
  })
}

export const newestFirst = <T extends Entity>(records: readonly T[]) =>
  sortedBy(records, [{ field: 'createdAt', descending: true }])

export const ids = (records: readonly { id: string }[]) => records.map((r) => r.id)

/** Another client of an existing organization, with only `scope`, and a fetch with its token. */
export async function clientOf(server: TestServer, orgId: string, scope: string[]): Promise<Tenant['fetch']> {
  const { client, secret } = await server.store.clients.create({
    name: 'narrow',
    orgId,
    public: false,
    scope,
  })
  const token = await clientToken(server.url, { id: client.id, secret: secret! })
  return (path, init = {}) => {
    const headers = new Headers(init.headers)
    headers.set('Authorization', `Bearer ${token}`)
    return server.fetch(path, { ...init, headers })
  }
}

/** Waits until the wall clock enters a new second, so that an HTTP-date (whole seconds) can move. */
export async function nextSecond(): Promise<void> {
  await Bun.sleep(1000 - (Date.now() % 1000) + 5)
}
