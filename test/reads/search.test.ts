import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createComment, createPost, createProduct, type Entity } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectBadParam, followNext, ids, list, newestFirst } from './helpers.ts'

let server: TestServer
let acme: Tenant
let products: Entity[]
let posts: Entity[]
let comments: Entity[]

const PRODUCTS = [
  { name: 'Café crème', description: 'Smooth and strong' },
  { name: 'Blue Widget', description: null },
  { name: 'Widget Pro', description: 'For professionals', active: false },
  { name: 'Gadget', description: 'Not a widget at all' },
  { name: 'Zoë Ångström mug', description: null },
]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  products = []
  for (const body of PRODUCTS) products.push(await createProduct(acme, body))
  posts = [await createPost(acme, { title: 'First' }), await createPost(acme, { title: 'Second' })]
  comments = [
    await createComment(acme, posts[0]!.id, { text: 'lovely aurora' }),
    await createComment(acme, posts[1]!.id, { text: 'aurora again' }),
  ]
  // Another organization with the same words: it must never show up.
  const other = await server.tenant()
  await createProduct(other, { name: 'Widget of another organization' })
})
afterAll(() => server.stop())

const named =
  (...names: string[]) =>
  () =>
    newestFirst(products.filter((p) => names.includes(p.name as string)))
const widgets = named('Blue Widget', 'Widget Pro', 'Gadget')
const nothing = () => []

describe('GET /api/v1/products?q=', () => {
  const cases: [q: string, expected: () => Entity[]][] = [
    ['widget', widgets],
    ['WIDGET', widgets],
    ['wid', widgets],
    ['blue wid', named('Blue Widget')],
    ['wid blue', nothing],
    ['cafe', named('Café crème')],
    ['CAFÉ', named('Café crème')],
    ['creme', named('Café crème')],
    ['smooth strong', named('Café crème')],
    ['zoe angstrom', named('Zoë Ångström mug')],
    ['professionals', named('Widget Pro')],
    // FTS5 syntax is inert: quotes, stars, operators and column filters are words or nothing.
    ['"widget"', widgets],
    ['widget"', widgets],
    ['"', nothing],
    ['widget*', widgets],
    ['*', nothing],
    ['-widget', widgets],
    ['-', nothing],
    ['widget OR gadget', nothing],
    ['widget AND', nothing],
    ['NOT widget', named('Gadget')],
    ['NEAR(widget gadget)', nothing],
    ['NEAR(', nothing],
    ['name:widget', nothing],
    [':', nothing],
    ['{name description}: widget', nothing],
    ['^widget', widgets],
    ['(widget)', widgets],
    ["widget'; DROP TABLE products; --", nothing],
    ['widget\\', widgets],
    ['%', nothing],
    ['w'.repeat(200), nothing],
  ]
  for (const [q, expected] of cases) {
    it(`answers q=${q.slice(0, 40)} with 200 and exactly the matching products of the organization`, async () => {
      const body = await list(acme, `/api/v1/products?q=${encodeURIComponent(q)}&limit=100`)
      expect(ids(body.data)).toEqual(ids(expected()))
      expect(body.filters).toEqual({ q })
    })
  }

  it('finds the same records through the alias search, echoed as search', async () => {
    const body = await list(acme, '/api/v1/products?search=wid')
    expect(ids(body.data)).toEqual(ids(widgets()))
    expect(body.filters).toEqual({ search: 'wid' })
  })

  it('combines q with filters, sort and pagination', async () => {
    const inactive = await list(acme, '/api/v1/products?q=widget&active=false')
    expect(ids(inactive.data)).toEqual(ids(named('Widget Pro')()))
    expect(inactive.filters).toEqual({ active: false, q: 'widget' })
    const sorted = await list(acme, '/api/v1/products?q=widget&sort=name')
    expect(sorted.data.map((p) => p.name)).toEqual(['Blue Widget', 'Gadget', 'Widget Pro'])
    const { items, pages } = await followNext(acme, '/api/v1/products?q=widget&limit=1')
    expect([ids(items), pages]).toEqual([ids(widgets()), 3])
    const counted = await list(acme, '/api/v1/products?q=widget&page=1&per_page=2&include_total=true')
    expect(counted.pagination).toMatchObject({ total: 3, totalPages: 2, hasMore: true })
  })

  it('searches only the children of the parent on a nested collection', async () => {
    const body = await list(acme, `/api/v1/posts/${posts[0]!.id}/comments?q=aurora`)
    expect(ids(body.data)).toEqual([comments[0]!.id])
    const all = await list(acme, '/api/v1/comments?q=aurora')
    expect(ids(all.data)).toEqual(ids(newestFirst(comments)))
  })
})

describe('the search index follows writes', () => {
  it('finds a product by its new name after PATCH and no longer by the old one', async () => {
    const lamp = await createProduct(acme, { name: 'Lantern', description: 'Brass' })
    expect(ids((await list(acme, '/api/v1/products?q=lantern')).data)).toEqual([lamp.id])
    const patched = await acme.fetch(`/api/v1/products/${lamp.id}`, {
      method: 'PATCH',
      json: { name: 'Torch', description: 'Steel' },
    })
    expect(patched.status).toBe(200)
    for (const gone of ['lantern', 'brass']) {
      expect((await list(acme, `/api/v1/products?q=${gone}`)).data).toEqual([])
    }
    for (const found of ['torch', 'steel']) {
      expect(ids((await list(acme, `/api/v1/products?q=${found}`)).data)).toEqual([lamp.id])
    }
  })

  it('finds a replaced (PUT) text and forgets a deleted record', async () => {
    const kettle = await createProduct(acme, { name: 'Kettle' })
    const put = await acme.fetch(`/api/v1/products/${kettle.id}`, {
      method: 'PUT',
      json: { name: 'Teapot', sku: kettle.sku, price: 100, currency: 'EUR' },
    })
    expect(put.status).toBe(200)
    expect((await list(acme, '/api/v1/products?q=kettle')).data).toEqual([])
    expect(ids((await list(acme, '/api/v1/products?q=teapot')).data)).toEqual([kettle.id])
    expect((await acme.fetch(`/api/v1/products/${kettle.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await list(acme, '/api/v1/products?q=teapot')).data).toEqual([])
  })
})

describe('GET /api/v1/{collection} with a bad q', () => {
  const bad: [path: string, field: string][] = [
    ['/api/v1/orders?q=paid', 'q'],
    ['/api/v1/orders?search=paid', 'search'],
    ['/api/v1/events?q=order', 'q'],
    ['/api/v1/line-items?q=x', 'q'],
    ['/api/v1/products?q=', 'q'],
    ['/api/v1/products?q=%20%20', 'q'],
    ['/api/v1/products?search=', 'search'],
    [`/api/v1/products?q=${'w'.repeat(201)}`, 'q'],
    ['/api/v1/products?q=a&search=b', 'search'],
    ['/api/v1/products?q=a&q=b', 'q'],
  ]
  for (const [path, field] of bad) {
    it(`rejects ${path.slice(0, 60)} with 400 and a detail naming ${field}`, async () => {
      await expectBadParam(await acme.fetch(path), field)
    })
  }
})
