import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { exampleSchema } from '../../shared/resources/index.ts'
import {
  create,
  createComment,
  createLineItem,
  createOrder,
  createPost,
  createProduct,
  createUser,
  type Entity,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  clientOf,
  expectBadParam,
  followNext,
  type Hit,
  ids,
  list,
  newestFirst,
  sortedBy,
  walkPages,
} from './helpers.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let other: Tenant
/** Every record of acme with the word aurora, and the collection it lives in. */
let auroras: Hit[]
let products: Entity[]
let orders: Entity[]
let lineItem: Entity

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  other = await server.tenant()
  auroras = []
  // A pause between creations gives every hit its own millisecond, so "newest first" is unambiguous.
  const add = async (collection: string, record: Promise<Entity>) => {
    auroras.push({ collection, record: await record })
    await Bun.sleep(2)
  }
  await add('users', createUser(acme, { name: 'Ada Aurora' }))
  const userId = auroras[0]!.record.id
  await add(
    'addresses',
    create(acme, `/api/v1/users/${userId}/addresses`, { line1: '1 Aurora Way', city: 'Oslo', country: 'NO' }),
  )
  await add('products', createProduct(acme, { name: 'Aurora lamp' }))
  await add('posts', createPost(acme, { authorId: userId, title: 'Aurora borealis' }))
  await add(
    'comments',
    createComment(acme, auroras[3]!.record.id, { authorId: userId, text: 'Saw the aurora' }),
  )
  await add('products', createProduct(acme, { name: 'Night light', description: 'Aurora colours' }))
  products = [
    await createProduct(acme, { name: 'Widget', price: 100 }),
    await createProduct(acme, { name: 'Widget XL', price: 300, active: false }),
    await createProduct(acme, { name: 'Gadget', price: 200 }),
  ]
  orders = []
  for (const [status, amount] of [
    ['paid', 100],
    ['paid', 300],
    ['shipped', 200],
    ['pending', 400],
  ] as const)
    orders.push(await createOrder(acme, { userId, status, amount }))
  lineItem = await createLineItem(acme, orders[0]!.id, { productId: products[0]!.id, quantity: 3 })
  await createProduct(other, { name: 'Aurora of another organization' })
  await createPost(other, { title: 'Aurora elsewhere' })
})
afterAll(() => server.stop())

const hitIds = (hits: Hit[]) => hits.map((h) => `${h.collection}:${h.record.id}`)
const newestHits = () => newestFirst(auroras.map((h) => ({ ...h.record, collection: h.collection })))
const expectedHits = () => newestHits().map((r) => `${r.collection}:${r.id}`)

describe('GET /api/v1/search?q=', () => {
  it('answers every matching record of the organization with its collection, newest first', async () => {
    const body = await list<Hit>(acme, '/api/v1/search?q=aurora&limit=100')
    expect(hitIds(body.data)).toEqual(expectedHits())
    expect(new Set(body.data.map((h) => h.collection))).toEqual(
      new Set(['users', 'addresses', 'products', 'posts', 'comments']),
    )
    expect(body.filters).toEqual({ q: 'aurora' })
  })

  it('answers each hit with the record as its own GET returns it', async () => {
    const body = await list<Hit>(acme, '/api/v1/search?q=aurora&limit=100')
    for (const hit of body.data) {
      const own = await acme.fetch(`/api/v1/${hit.collection}/${hit.record.id}`)
      expect(await readJson(own)).toEqual(hit.record)
    }
  })

  it('takes the alias search and echoes it under that name', async () => {
    const body = await list<Hit>(acme, '/api/v1/search?search=auro&limit=100')
    expect(hitIds(body.data)).toEqual(expectedHits())
    expect(body.filters).toEqual({ search: 'auro' })
  })

  it('sorts oldest first with sort=created_at and by sort=-updated_at', async () => {
    const oldest = await list<Hit>(acme, '/api/v1/search?q=aurora&sort=created_at&limit=100')
    expect(hitIds(oldest.data)).toEqual(expectedHits().reverse())
    const updated = await list<Hit>(acme, '/api/v1/search?q=aurora&sort=-updated_at&limit=100')
    const byUpdate = sortedBy(newestHits(), [{ field: 'updatedAt', descending: true }])
    expect(hitIds(updated.data)).toEqual(byUpdate.map((r) => `${r.collection}:${r.id}`))
  })

  it('never answers records of another organization', async () => {
    const body = await list<Hit>(other, '/api/v1/search?q=aurora&limit=100')
    expect(body.data.map((h) => h.record.name ?? h.record.title)).toEqual([
      'Aurora elsewhere',
      'Aurora of another organization',
    ])
    const mine = new Set(auroras.map((h) => h.record.id))
    for (const hit of body.data) expect(mine.has(hit.record.id)).toBe(false)
  })

  it('leaves out posts for a token without read:posts, and keeps the rest', async () => {
    const narrow = await clientOf(
      server,
      acme.orgId,
      SCHEMA.scopes.filter((s) => s !== 'read:posts'),
    )
    const response = await narrow('/api/v1/search?q=aurora&limit=100')
    expect(response.status).toBe(200)
    const body = await readJson<{ data: Hit[] }>(response)
    expect(hitIds(body.data)).toEqual(expectedHits().filter((h) => !h.startsWith('posts:')))
    expect((await narrow('/api/v1/search?collection=posts&filter=published%20%3D%20false')).status).toBe(403)
  })
})

describe('GET /api/v1/search pagination', () => {
  it('visits every hit once following next (cursor style, exact keys)', async () => {
    const first = await list<Hit>(acme, '/api/v1/search?q=aurora&limit=2')
    expect(Object.keys(first.pagination).sort()).toEqual(['hasMore', 'limit', 'next', 'nextCursor'])
    const { items, pages } = await followNext<Hit>(acme, '/api/v1/search?q=aurora&limit=2')
    expect(hitIds(items)).toEqual(expectedHits())
    expect(pages).toBe(3)
    const ascending = await followNext<Hit>(acme, '/api/v1/search?q=aurora&limit=4&sort=created_at')
    expect(hitIds(ascending.items)).toEqual(expectedHits().reverse())
  })

  it('continues after a hit in keyset style', async () => {
    const body = await list<Hit>(acme, `/api/v1/search?q=aurora&after=${newestHits()[1]!.id}&limit=2`)
    expect(Object.keys(body.pagination).sort()).toEqual(['hasMore', 'limit', 'next', 'nextAfter'])
    expect(hitIds(body.data)).toEqual(expectedHits().slice(2, 4))
    const rest = await followNext<Hit>(acme, body.pagination.next!)
    expect(hitIds(rest.items)).toEqual(expectedHits().slice(4))
  })

  it('answers page and offset styles with their keys and totals', async () => {
    const page = await list<Hit>(acme, '/api/v1/search?q=aurora&page=2&per_page=2&include_total=true')
    expect(page.pagination).toEqual({ page: 2, limit: 2, total: 6, totalPages: 3, hasMore: true })
    expect(hitIds(page.data)).toEqual(expectedHits().slice(2, 4))
    const offset = await list<Hit>(acme, '/api/v1/search?q=aurora&offset=5&limit=2')
    expect(offset.pagination).toEqual({
      page: 3,
      offset: 5,
      limit: 2,
      total: null,
      totalPages: null,
      hasMore: false,
    })
    expect(hitIds(offset.data)).toEqual(expectedHits().slice(5))
    expect(hitIds(await walkPages<Hit>(acme, '/api/v1/search?q=aurora', 4))).toEqual(expectedHits())
    const cursor = await list<Hit>(acme, '/api/v1/search?q=aurora&include_total=true')
    expect(cursor.pagination.total).toBe(6)
  })
})

describe('GET /api/v1/search?collection=&filter=', () => {
  const cases: [query: string, expected: () => Entity[], echo: Record<string, unknown>][] = [
    [
      "collection=products&filter=name LIKE 'Widget%' OR name = 'Gadget'",
      () => newestFirst(products),
      { filter: "name LIKE 'Widget%' OR name = 'Gadget'" },
    ],
    [
      'collection=products&filter=price >= 200 AND price < 1000&active=true',
      () => [products[2]!],
      { active: true, filter: 'price >= 200 AND price < 1000' },
    ],
    [
      'collection=products&filter=active = false&q=widget',
      () => [products[1]!],
      { q: 'widget', filter: 'active = false' },
    ],
    [
      "collection=orders&filter=status IN ('paid', 'shipped') AND NOT amount < 200&sort=-amount",
      () => [orders[1]!, orders[2]!],
      { filter: "status IN ('paid', 'shipped') AND NOT amount < 200" },
    ],
    [
      "collection=users&filter=name = 'Ada Aurora'",
      () => [auroras[0]!.record],
      { filter: "name = 'Ada Aurora'" },
    ],
    ['collection=line-items&filter=quantity > 2', () => [lineItem], { filter: 'quantity > 2' }],
  ]
  for (const [query, expected, echo] of cases) {
    it(`lists ${query} like the collection's own GET, filtered by the expression`, async () => {
      const body = await list(acme, `/api/v1/search?${new URLSearchParams(query)}&limit=100`)
      expect(ids(body.data)).toEqual(ids(expected()))
      expect(body.filters).toEqual(echo)
    })
  }

  it('follows next within the filter', async () => {
    const { items } = await followNext(
      acme,
      '/api/v1/search?collection=orders&filter=amount%20%3E%3D%20200&limit=1&sort=amount',
    )
    expect(ids(items)).toEqual(ids([orders[2]!, orders[1]!, orders[3]!]))
  })
})

describe('GET /api/v1/search with bad parameters', () => {
  const bad: [query: string, field: string][] = [
    ['', 'q'],
    ['q=', 'q'],
    ['q=aurora&status=paid', 'status'],
    ['q=aurora&org_id=x', 'org_id'],
    ['q=aurora&sort=name', 'sort'],
    ['q=aurora&limit=0', 'limit'],
    ['q=aurora&cursor=not-a-cursor', 'cursor'],
    ['q=aurora&after=prd_01jd3v0m7qf8s9t2w4x6y8z0ab', 'after'],
    ['q=a&q=b', 'q'],
    ['filter=amount%20%3E%201', 'collection'],
    ['q=aurora&filter=amount%20%3E%201', 'collection'],
    ['collection=nope&filter=amount%20%3E%201', 'collection'],
    ['collection=&filter=amount%20%3E%201', 'collection'],
    ['collection=orders&filter=status%20%3D', 'filter'],
    ['collection=orders&filter=bogus%20%3D%201', 'filter'],
    ['collection=orders&filter=', 'filter'],
    ['collection=orders&filter=amount%20%3E%201&colour=red', 'colour'],
    ['collection=orders&collection=users', 'collection'],
    ['collection=orders&filter=amount%20%3E%201&filter=amount%20%3C%201', 'filter'],
    ['collection=events&q=order', 'q'],
  ]
  for (const [query, field] of bad) {
    it(`rejects /api/v1/search?${query} with 400 and a detail naming ${field}`, async () => {
      await expectBadParam(await acme.fetch(`/api/v1/search?${query}`), field)
    })
  }
})
