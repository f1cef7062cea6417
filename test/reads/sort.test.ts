import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createOrder, createProduct, createUser, type Entity, readJson } from '../rest/fixtures.ts'
import { valuesOf } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectBadParam, followNext, ids, list, sortedBy, sortKeys } from './helpers.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')

let server: TestServer
let acme: Tenant
let orders: Entity[]
let products: Entity[]

const NAMES = ['apple', 'Banana', 'cherry', 'Apple pie', 'banana', 'Cherry', 'apple', 'date']

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  const userId = (await createUser(acme)).id
  orders = []
  for (let i = 0; i < 14; i++) {
    const extra = { userId, amount: [300, 100, 200][i % 3], status: ORDER_STATUSES[(i * 3) % 5] }
    orders.push(await createOrder(acme, extra))
  }
  products = []
  for (const [i, name] of NAMES.entries())
    products.push(
      await createProduct(acme, {
        name,
        sku: `SKU-${(i * 5) % 8}-${name}`,
        price: [500, 100, 500, 200][i % 4],
      }),
    )
  // Updates in another order than creation, so that updated_at and created_at sort differently.
  await Bun.sleep(2)
  for (const [collection, records] of [
    ['orders', orders],
    ['products', products],
  ] as const) {
    for (const i of [5, 1, 3]) {
      const response = await acme.fetch(`/api/v1/${collection}/${records[i]!.id}`, {
        method: 'PATCH',
        json: {},
      })
      expect(response.status).toBe(200)
      records[i] = await readJson(response)
      expect(records[i]!.updatedAt).not.toBe(records[i]!.createdAt)
      await Bun.sleep(2)
    }
  }
})
afterAll(() => server.stop())

const subjects = [
  {
    path: '/api/v1/orders',
    fields: ['created_at', 'createdAt', 'updated_at', 'updatedAt', 'status', 'amount'],
    all: () => orders,
  },
  {
    path: '/api/v1/products',
    fields: ['created_at', 'updated_at', 'updatedAt', 'name', 'sku', 'price'],
    all: () => products,
  },
]
/** The spellings of one direction: `field`, `+field`, `field:asc`, and `-field`, `field:desc`. */
const spellings = (field: string) => [field, `%2B${field}`, `${field}:asc`, `-${field}`, `${field}:desc`]

for (const subject of subjects) {
  describe(`GET ${subject.path}?sort=`, () => {
    for (const field of subject.fields) {
      for (const sort of spellings(field)) {
        it(`orders by sort=${sort}, ties by id in the same direction`, async () => {
          const body = await list(acme, `${subject.path}?sort=${sort}&limit=100`)
          const expected = sortedBy(subject.all(), sortKeys(decodeURIComponent(sort).replace(/^\+/, '')))
          expect(ids(body.data)).toEqual(ids(expected))
        })
      }
    }
  })
}

describe('GET /api/v1/orders with several sort keys', () => {
  const sorts = [
    'status,-amount',
    'status:asc,amount:desc',
    '-status,amount,created_at',
    'amount,status:desc',
    '-amount,-status',
    'status,amount,updated_at,created_at',
    'amount,updatedAt:desc',
  ]
  for (const sort of sorts) {
    it(`orders by sort=${sort}, on one page and across pages of 3`, async () => {
      const expected = ids(sortedBy(orders, sortKeys(sort)))
      expect(ids((await list(acme, `/api/v1/orders?sort=${sort}&limit=100`)).data)).toEqual(expected)
      expect(ids((await followNext(acme, `/api/v1/orders?sort=${sort}&limit=3`)).items)).toEqual(expected)
    })
  }

  it('accepts white space around keys', async () => {
    const body = await list(acme, '/api/v1/orders?sort=%20status%20,%20-amount%20&limit=100')
    expect(ids(body.data)).toEqual(ids(sortedBy(orders, sortKeys('status,-amount'))))
  })

  it('breaks ties by id: ascending after an ascending last key, descending after a descending one', async () => {
    for (const [sort, descending] of [
      ['amount', false],
      ['-amount', true],
    ] as const) {
      const body = await list(acme, `/api/v1/orders?sort=${sort}&limit=100`)
      const amounts = [...new Set(body.data.map((o) => o.amount))]
      expect(amounts).toHaveLength(3)
      for (const amount of amounts) {
        const group = ids(body.data.filter((o) => o.amount === amount))
        expect(group.length).toBeGreaterThan(1)
        expect(group).toEqual(
          [...group].sort((a, b) => (descending ? b.localeCompare(a) : a.localeCompare(b))),
        )
      }
    }
  })

  it('answers the same order on every request', async () => {
    const first = ids((await list(acme, '/api/v1/orders?sort=status&limit=100')).data)
    for (let i = 0; i < 3; i++) {
      expect(ids((await list(acme, '/api/v1/orders?sort=status&limit=100')).data)).toEqual(first)
    }
  })
})

describe('bad sort parameters', () => {
  const bad: [path: string, why: string][] = [
    ['/api/v1/orders?sort=currency', 'a field that is not sortable'],
    ['/api/v1/orders?sort=user_id', 'a reference that is not sortable'],
    ['/api/v1/orders?sort=bogus', 'an unknown field'],
    ['/api/v1/orders?sort=org_id', 'the organization'],
    ['/api/v1/orders?sort=name', "another collection's field"],
    ['/api/v1/products?sort=active', 'a boolean that is not sortable'],
    ['/api/v1/products?sort=description', 'a text that is not sortable'],
    ['/api/v1/orders?sort=status,amount,created_at,updated_at,id', 'five keys'],
    ['/api/v1/orders?sort=amount,-amount', 'a key twice'],
    ['/api/v1/orders?sort=created_at,createdAt', 'a key twice in two spellings'],
    ['/api/v1/orders?sort=-amount:asc', 'two directions'],
    ['/api/v1/orders?sort=%2Bamount:desc', 'two directions (+ and :desc)'],
    ['/api/v1/orders?sort=--amount', 'a doubled sign'],
    ['/api/v1/orders?sort=amount:up', 'an unknown direction'],
    ['/api/v1/orders?sort=amount:', 'an empty direction'],
    ['/api/v1/orders?sort=', 'an empty value'],
    ['/api/v1/orders?sort=,', 'only a comma'],
    ['/api/v1/orders?sort=amount,', 'an empty key'],
    ['/api/v1/orders?sort=amount;drop', 'punctuation'],
    ['/api/v1/orders?sort=amount%20desc', 'SQL direction syntax'],
    ['/api/v1/orders?sort=amount&sort=status', 'sort repeated'],
  ]
  for (const [path, why] of bad) {
    it(`rejects ${why} (${path.replace('/api/v1/', '')}) with 400 and a detail naming sort`, async () => {
      await expectBadParam(await acme.fetch(path), 'sort')
    })
  }
})
