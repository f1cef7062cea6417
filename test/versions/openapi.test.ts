import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

type Doc = {
  info: { version: string }
  paths: Record<string, Record<string, { deprecated?: boolean; responses?: Record<string, unknown> }>>
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> }
}

let server: TestServer
const docs: Record<string, Doc> = {}

beforeAll(async () => {
  server = await startTestServer()
  for (const v of ['v1', 'v2']) docs[v] = (await (await server.fetch(`/api/${v}/openapi.json`)).json()) as Doc
})
afterAll(() => server.stop())

describe.each(['v1', 'v2'])('GET /api/%s/openapi.json', (v) => {
  it('is a valid OpenAPI document, 3.1 for v1 and 3.2 for v2 (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(docs[v] as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(docs[v]!.info.version).toBe(v)
  })

  it('covers every resource path, the search, stored queries, versions, health and OAuth', () => {
    const paths = Object.keys(docs[v]!.paths)
    const expected = [
      ...SCHEMA.resources.flatMap((r) => [`/api/${v}/${r.name}`, `/api/${v}/${r.name}/{id}`]),
      `/api/${v}/search`,
      `/api/${v}/queries/{id}`,
      `/api/${v}/queries/{id}/results/{token}`,
      '/api/versions',
      '/healthz',
      '/readyz',
      '/oauth/token',
      '/oauth/authorize',
      '/oauth/revoke',
      '/oauth/introspect',
      '/oauth/device_authorization',
    ]
    expect(paths).toEqual(expect.arrayContaining(expected))
  })

  it('describes QUERY on collections (query in 3.2, x-query in 3.1), and 429 on every throttled operation', () => {
    const queryField = v === 'v2' ? 'query' : 'x-query'
    expect(docs[v]!.paths[`/api/${v}/orders`]![queryField]!.responses!['200']).toBeDefined()
    for (const [path, item] of Object.entries(docs[v]!.paths))
      for (const [method, op] of Object.entries(item))
        if (['get', 'post', 'put', 'patch', 'delete', queryField].includes(method))
          // The health probes are never throttled (docs/operations.md).
          expect(op.responses!['429'] !== undefined).toBe(!['/healthz', '/readyz'].includes(path))
  })
})

describe('the documents differ where the versions do', () => {
  it('v2 orders and products have money objects and no currency field; v1 keeps them flat', () => {
    const [v1, v2] = [docs.v1!.components.schemas, docs.v2!.components.schemas]
    expect(v1.Order!.properties!.amount).toMatchObject({ type: 'integer' })
    expect(v1.Order!.properties!.currency).toBeDefined()
    for (const [schema, field] of [
      ['Order', 'amount'],
      ['OrderCreate', 'amount'],
      ['Product', 'price'],
      ['ProductPatch', 'price'],
    ] as const) {
      expect(v2[schema]!.properties![field]).toMatchObject({
        type: 'object',
        required: ['value', 'currency'],
      })
      expect(v2[schema]!.properties!.currency).toBeUndefined()
    }
    expect(v2.OrderCreate!.required).not.toContain('currency')
  })

  it('v1 operations are deprecated, v2 operations are not', () => {
    expect(docs.v1!.paths['/api/v1/orders']!.get!.deprecated).toBe(true)
    expect(docs.v2!.paths['/api/v2/orders']!.get!.deprecated).toBeUndefined()
  })
})
