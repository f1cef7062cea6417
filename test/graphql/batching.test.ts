import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLineItem, createOrder, createProduct, createUser } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { data, type Loose, statementsOf } from './support.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  const user = await createUser(acme)
  const products = [await createProduct(acme), await createProduct(acme), await createProduct(acme)]
  for (let i = 0; i < 20; i++) {
    const order = await createOrder(acme, { userId: user.id, amount: 100 + i })
    for (const product of products) await createLineItem(acme, order.id, { productId: product.id })
  }
})
afterAll(() => server.stop())

const page = (first: number, total = '') => `{
  orders(first: ${first}) {
    ${total}
    nodes { id user { name } lineItems { nodes { quantity product { name sku } } } }
  }
}`

describe('batched relations (DataLoader)', () => {
  it('loads a page of 20 orders with their line items and products in a fixed number of statements', async () => {
    await data(server, acme, '{ __typename }') // warms the token cache: verification is not what is counted
    let result: Loose
    const many = await statementsOf(server.sql, async () => {
      result = await data(server, acme, page(20))
    })
    const orders = result.orders.nodes
    expect(orders).toHaveLength(20)
    for (const order of orders) {
      expect(order.user.name).toBe('Ann')
      expect(order.lineItems.nodes).toHaveLength(3)
      for (const item of order.lineItems.nodes) expect(item.product.sku).toStartWith('MUG')
    }
    // The page, every order's user, the line items of all orders, their products.
    expect(many).toHaveLength(4)
    const few = await statementsOf(server.sql, () => data(server, acme, page(2)))
    expect(few).toHaveLength(many.length)
  })

  it('counts only when totalCount is selected, at the top and in nested connections', async () => {
    const counting = (statements: string[]) => statements.filter((sql) => /count\(\*\)/i.test(sql))
    expect(counting(await statementsOf(server.sql, () => data(server, acme, page(20))))).toEqual([])
    const withTotals = await statementsOf(server.sql, () =>
      data(server, acme, '{ orders(first: 20) { totalCount nodes { lineItems { totalCount } } } }'),
    )
    expect(counting(withTotals)).toHaveLength(2)
  })

  it('answers nested pages like the nested REST collection', async () => {
    const got = await data(
      server,
      acme,
      '{ orders(first: 3) { nodes { id lineItems(first: 2, sort: "createdAt") { totalCount nodes { id } pageInfo { hasNextPage endCursor } } } } }',
    )
    for (const order of got.orders.nodes) {
      const viaRest = (await (
        await acme.fetch(`/api/v1/orders/${order.id}/line-items?limit=2&sort=created_at`)
      ).json()) as Loose
      expect(order.lineItems.nodes.map((n: { id: string }) => n.id)).toEqual(
        viaRest.data.map((r: { id: string }) => r.id),
      )
      expect(order.lineItems.totalCount).toBe(3)
      expect(order.lineItems.pageInfo).toEqual({
        hasNextPage: true,
        endCursor: viaRest.pagination.nextCursor,
      })
      // The cursor continues that order's list, through GraphQL as through REST.
      const next = await data(
        server,
        acme,
        `query($id: ID!, $after: String) { order(id: $id) { lineItems(first: 2, sort: "createdAt", after: $after) { nodes { id } pageInfo { hasNextPage } } } }`,
        {
          id: order.id,
          after: order.lineItems.pageInfo.endCursor,
        },
      )
      expect(next.order.lineItems.nodes).toHaveLength(1)
      expect(next.order.lineItems.pageInfo.hasNextPage).toBe(false)
    }
  })
})
