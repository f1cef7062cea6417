import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLineItem, createOrder, createProduct, createUser, type Entity } from '../rest/fixtures.ts'
import { valuesOf } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  expectBadParam,
  followNext,
  ids,
  type Listing,
  list,
  newestFirst,
  sortedBy,
  sortKeys,
  walkPages,
} from './helpers.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')

let server: TestServer
let acme: Tenant
let other: Tenant
let orders: Entity[]
let itemsOfA: Entity[]
let orderA: Entity
let orderB: Entity

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  other = await server.tenant()
  const userId = (await createUser(acme)).id
  orders = []
  // 30 orders, 3 amounts and 4 statuses: every sort below meets many equal values.
  for (let i = 0; i < 30; i++) {
    const extra = { userId, amount: [100, 200, 300][i % 3], status: ORDER_STATUSES[i % 4] }
    orders.push(await createOrder(acme, extra))
  }
  ;[orderA, orderB] = [orders[0]!, orders[1]!]
  const productId = (await createProduct(acme)).id
  itemsOfA = []
  for (let i = 0; i < 12; i++)
    itemsOfA.push(await createLineItem(acme, orderA.id, { productId, quantity: (i % 3) + 1 }))
  for (let i = 0; i < 3; i++) await createLineItem(acme, orderB.id, { productId })
  await createOrder(other)
})
afterAll(() => server.stop())

const subjects = [
  { name: 'GET /api/v1/orders', path: () => '/api/v1/orders', all: () => orders },
  {
    name: 'GET /api/v1/orders/{id}/line-items',
    path: () => `/api/v1/orders/${orderA.id}/line-items`,
    all: () => itemsOfA,
  },
]

const CURSOR_KEYS = ['hasMore', 'limit', 'next', 'nextCursor']
const KEYSET_KEYS = ['hasMore', 'limit', 'next', 'nextAfter']
const PAGE_KEYS = ['hasMore', 'limit', 'page', 'total', 'totalPages']
const OFFSET_KEYS = ['hasMore', 'limit', 'offset', 'page', 'total', 'totalPages']

/** Each style: its query, the exact pagination keys, the slice of newest-first it returns, its values. */
const styles: {
  label: string
  query: (all: Entity[]) => string
  keys: string[]
  slice: [number, number]
  expected: (all: Entity[], body: Listing) => Record<string, unknown>
}[] = [
  {
    label: 'cursor (no style parameter)',
    query: () => 'limit=5',
    keys: CURSOR_KEYS,
    slice: [0, 5],
    expected: () => ({ limit: 5, hasMore: true }),
  },
  {
    label: 'cursor with include_total=true',
    query: () => 'limit=5&include_total=true',
    keys: [...CURSOR_KEYS, 'total'].sort(),
    slice: [0, 5],
    expected: (all) => ({ limit: 5, hasMore: true, total: all.length }),
  },
  {
    label: 'cursor with include_total=false',
    query: () => 'limit=5&include_total=false',
    keys: CURSOR_KEYS,
    slice: [0, 5],
    expected: () => ({ limit: 5, hasMore: true }),
  },
  {
    label: 'keyset (after)',
    query: (all) => `after=${all[2]!.id}&limit=5`,
    keys: KEYSET_KEYS,
    slice: [3, 8],
    expected: (_, body) => ({ limit: 5, hasMore: true, nextAfter: body.data.at(-1)!.id }),
  },
  {
    label: 'keyset with include_total=true',
    query: (all) => `after=${all[2]!.id}&limit=5&include_total=true`,
    keys: [...KEYSET_KEYS, 'total'].sort(),
    slice: [3, 8],
    expected: (all, body) => ({
      limit: 5,
      hasMore: true,
      nextAfter: body.data.at(-1)!.id,
      total: all.length,
    }),
  },
  {
    label: 'page and per_page',
    query: () => 'page=2&per_page=5',
    keys: PAGE_KEYS,
    slice: [5, 10],
    expected: () => ({ page: 2, limit: 5, total: null, totalPages: null, hasMore: true }),
  },
  {
    label: 'page and limit',
    query: () => 'page=2&limit=5',
    keys: PAGE_KEYS,
    slice: [5, 10],
    expected: () => ({ page: 2, limit: 5, total: null, totalPages: null, hasMore: true }),
  },
  {
    label: 'page with include_total=true',
    query: () => 'page=2&per_page=5&include_total=true',
    keys: PAGE_KEYS,
    slice: [5, 10],
    expected: (all) => ({
      page: 2,
      limit: 5,
      total: all.length,
      totalPages: Math.ceil(all.length / 5),
      hasMore: true,
    }),
  },
  {
    label: 'offset and limit',
    query: () => 'offset=6&limit=5',
    keys: OFFSET_KEYS,
    slice: [6, 11],
    expected: () => ({ page: 2, offset: 6, limit: 5, total: null, totalPages: null, hasMore: true }),
  },
  {
    label: 'offset with include_total=true',
    query: () => 'offset=6&limit=5&include_total=true',
    keys: OFFSET_KEYS,
    slice: [6, 11],
    expected: (all) => ({
      page: 2,
      offset: 6,
      limit: 5,
      total: all.length,
      totalPages: Math.ceil(all.length / 5),
      hasMore: true,
    }),
  },
]

for (const subject of subjects) {
  describe(subject.name, () => {
    for (const style of styles) {
      it(`answers ${style.label} with exactly the keys ${style.keys.join(', ')}`, async () => {
        const all = newestFirst(subject.all())
        const query = style.query(all)
        const body = await list(acme, `${subject.path()}?${query}`)
        expect(Object.keys(body.pagination).sort()).toEqual(style.keys)
        expect(ids(body.data)).toEqual(ids(all.slice(...style.slice)))
        expect(body.pagination).toMatchObject(style.expected(all, body))
        if ('next' in body.pagination) {
          const next = new URL(body.pagination.next!, server.url)
          expect(next.pathname).toBe(subject.path())
          const name = style.keys.includes('nextAfter') ? 'after' : 'cursor'
          const value = body.pagination.nextAfter ?? body.pagination.nextCursor
          expect(next.searchParams.get(name)).toBe(value as string)
          expect(next.searchParams.get('limit')).toBe('5')
        }
      })
    }

    it('answers with the default limit of 20 in cursor style when no parameter is given', async () => {
      const body = await list(acme, subject.path())
      expect(Object.keys(body.pagination).sort()).toEqual(CURSOR_KEYS)
      expect(body.pagination.limit).toBe(20)
      expect(ids(body.data)).toEqual(ids(newestFirst(subject.all()).slice(0, 20)))
    })

    it('answers a page beyond the end with no data and hasMore false', async () => {
      const n = subject.all().length
      const page = await list(acme, `${subject.path()}?page=100&per_page=10&include_total=true`)
      expect(page.data).toEqual([])
      expect(page.pagination).toEqual({
        page: 100,
        limit: 10,
        total: n,
        totalPages: Math.ceil(n / 10),
        hasMore: false,
      })
      const offset = await list(acme, `${subject.path()}?offset=${n}&limit=10`)
      expect(offset.data).toEqual([])
      expect(offset.pagination.hasMore).toBe(false)
      const lastOne = await list(acme, `${subject.path()}?offset=${n - 1}&limit=10`)
      expect(ids(lastOne.data)).toEqual([newestFirst(subject.all()).at(-1)!.id])
      expect(lastOne.pagination.hasMore).toBe(false)
    })

    it('ends cursor and keyset walks with hasMore false and null next', async () => {
      const all = newestFirst(subject.all())
      const cursor = await list(acme, `${subject.path()}?limit=100`)
      expect(cursor.pagination).toEqual({ limit: 100, hasMore: false, nextCursor: null, next: null })
      const keyset = await list(acme, `${subject.path()}?after=${all.at(-1)!.id}`)
      expect(keyset.data).toEqual([])
      expect(keyset.pagination).toEqual({ limit: 20, hasMore: false, nextAfter: null, next: null })
    })
  })
}

describe('following pagination.next', () => {
  const walks = [
    { subject: subjects[0]!, sort: '-created_at' },
    { subject: subjects[0]!, sort: '-amount' },
    { subject: subjects[0]!, sort: 'amount' },
    { subject: subjects[0]!, sort: 'status,amount:desc' },
    { subject: subjects[0]!, sort: '-status,amount' },
    { subject: subjects[1]!, sort: '-quantity' },
    { subject: subjects[1]!, sort: 'quantity,created_at:desc' },
  ]
  for (const { subject, sort } of walks) {
    const name = subject.name.replace('GET ', '')
    it(`visits every record of ${name} exactly once, in order, with sort=${sort} (cursor, keyset, page)`, async () => {
      const expected = ids(sortedBy(subject.all(), sortKeys(sort)))
      const base = `${subject.path()}?sort=${sort}&limit=7`
      const byCursor = await followNext(acme, base)
      expect(ids(byCursor.items)).toEqual(expected)
      expect(byCursor.pages).toBe(Math.ceil(expected.length / 7))
      // Keyset: the first page is a plain one; its last id starts the `after` walk.
      const first = await list(acme, base)
      const rest = await followNext(acme, `${base}&after=${first.data.at(-1)!.id}`)
      expect([...ids(first.data), ...ids(rest.items)]).toEqual(expected)
      const byPage = await walkPages(acme, `${subject.path()}?sort=${sort}`, 7)
      expect(ids(byPage)).toEqual(expected)
    })
  }
})

describe('bad pagination parameters', () => {
  const cases: [query: string, field: string][] = [
    ['page=1&offset=0', 'offset'],
    ['page=2&cursor=abc', 'cursor'],
    ['offset=0&after=ord_01jd3v0m7qf8s9t2w4x6y8z0ab', 'after'],
    ['cursor=abc&after=ord_01jd3v0m7qf8s9t2w4x6y8z0ab', 'after'],
    ['limit=5&per_page=5', 'per_page'],
    ['per_page=5&offset=0', 'per_page'],
    ['per_page=5&cursor=abc', 'per_page'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=101', 'limit'],
    ['limit=99999999999999999999', 'limit'],
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1e2', 'limit'],
    ['limit=', 'limit'],
    ['limit=%201', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=two', 'page'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['cursor=', 'cursor'],
    ['after=', 'after'],
    ['after=ord_01jd3v0m7qf8s9t2w4x6y8z0ab', 'after'],
    ['include_total=yes', 'include_total'],
    ['include_total=1', 'include_total'],
    ['limit=5&limit=6', 'limit'],
    ['page=1&page=2', 'page'],
  ]
  for (const subject of subjects) {
    for (const [query, field] of cases) {
      it(`rejects ${query} on ${subject.name} with 400 and a detail naming ${field}`, async () => {
        await expectBadParam(await acme.fetch(`${subject.path()}?${query}`), field)
      })
    }
  }
})
