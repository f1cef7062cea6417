import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { groupableKeys } from '../../shared/query/aggregate-params.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { ResponseValidator } from '../openapi/response-validator.ts'
import { createOrder, createProduct } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/** The aggregates in the OpenAPI documents: v2 describes them per collection, v1 has none. */

type Json = Record<string, unknown>
const SCHEMA = exampleSchema()
let server: TestServer
let t: Tenant
let v2: Json & { paths: Record<string, Json>; components: { schemas: Record<string, Json> } }

beforeAll(async () => {
  server = await startTestServer()
  t = await server.tenant()
  v2 = (await (await server.fetch('/api/v2/openapi.json')).json()) as typeof v2
  const order = await createOrder(t, { status: 'paid', amount: 4200 })
  await t.fetch(`/api/v2/orders/${order.id}/line-items`, {
    method: 'POST',
    json: { productId: (await createProduct(t)).id, quantity: 2, unitPrice: 100 },
  })
})
afterAll(() => server.stop())

describe('GET /api/v2/openapi.json', () => {
  it('has a GET and a QUERY of aggregates for every collection, group_by listing the allowed keys', () => {
    for (const resource of SCHEMA.resources) {
      const item = v2.paths[`/api/v2/${resource.name}/aggregates`] as Record<string, Json>
      expect(item.get!.operationId).toBeString()
      const groupBy = (item.get!.parameters as Json[]).find((p) => p.name === 'group_by')!
      expect((groupBy.schema as { items: { enum: string[] } }).items.enum).toEqual(groupableKeys(resource))
      expect(Object.keys((item.query!.requestBody as { content: Json }).content).sort()).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ])
      expect((item.get!.parameters as Json[]).map((p) => p.name)).not.toContain('after')
    }
    expect(v2.paths['/api/v2/orders/{parentId}/line-items/aggregates']).toBeDefined()
    const group = v2.components.schemas.OrderAggregateGroup as { properties: Record<string, Json> }
    expect(group.properties.status).toEqual({
      type: 'string',
      enum: ['pending', 'paid', 'shipped', 'delivered', 'cancelled'],
    })
    expect(group.properties.sum).toMatchObject({ properties: { amount: { type: 'integer' } } })
  })

  it('v1 has none: it gets no new endpoints', async () => {
    const v1 = (await (await server.fetch('/api/v1/openapi.json')).json()) as { paths: Json }
    expect(Object.keys(v1.paths).filter((p) => p.endsWith('/aggregates'))).toEqual([])
  })

  it('describes what the server answers, status, headers and body', async () => {
    const validator = new ResponseValidator(v2)
    const order = (await (await t.fetch('/api/v2/orders?limit=1')).json()) as { data: { id: string }[] }
    const requests: [string, string, string?][] = [
      [
        'GET',
        '/api/v2/orders/aggregates?group_by=status,created_at:day&aggregate=count,sum(amount),avg(amount),min(amount),max(created_at)',
      ],
      ['GET', '/api/v2/orders/aggregates?group_by=user_id&page=1&per_page=5&include_total=true'],
      ['GET', '/api/v2/products/aggregates?group_by=active&aggregate=min(name),max(price)'],
      [
        'GET',
        `/api/v2/orders/${order.data[0]!.id}/line-items/aggregates?group_by=product_id&aggregate=sum(quantity)`,
      ],
      ['GET', '/api/v2/orders/aggregates?group_by=nope'],
      ['QUERY', '/api/v2/orders/aggregates', 'group_by=status'],
    ]
    for (const [method, target, form] of requests) {
      const response = await t.fetch(target, {
        method,
        ...(form ? { body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } : {}),
      })
      const body = await response.text()
      expect(
        validator.check({ method, target, status: response.status, headers: response.headers, body }),
      ).toEqual([])
    }
  })
})
