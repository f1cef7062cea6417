import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; operationId?: string }>>
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> }
}

beforeAll(async () => {
  server = await startTestServer()
  doc = (await (await server.fetch('/api/v1/openapi.json')).json()) as typeof doc
})
afterAll(() => server.stop())

describe('GET /api/v1/openapi.json', () => {
  it('is served without a token as JSON', async () => {
    const response = await server.fetch('/api/v1/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
  })

  it('describes every collection, record and nested path the server routes', () => {
    const expected = SCHEMA.resources.flatMap((r) => {
      const own = [`/api/v1/${r.name}`, `/api/v1/${r.name}/{id}`]
      if (!r.parent) return own
      const nested = `/api/v1/${r.parent.collection}/{parentId}/${r.name}`
      return [...own, nested, `${nested}/{id}`]
    })
    expect(Object.keys(doc.paths).sort()).toEqual(expect.arrayContaining(expected.sort()))
  })

  it('documents exactly the methods each path answers', async () => {
    const acme = await server.tenant()
    for (const [path, item] of Object.entries(doc.paths)) {
      // The REST routes; the document itself is a plain GET.
      if (!path.startsWith('/api/v1/') || path.includes('{') || path.endsWith('/openapi.json')) continue
      const allow = (await acme.fetch(path, { method: 'OPTIONS' })).headers.get('allow') ?? ''
      const documented = Object.keys(item)
        .filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k))
        .map((k) => k.toUpperCase())
      for (const method of documented) expect(allow.split(', ')).toContain(method)
    }
  })

  it('gives every operation a unique id and error responses in the contract shape', () => {
    const ids = new Set<string>()
    for (const item of Object.values(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters' || method.startsWith('x-')) continue
        expect(op.operationId).toBeString()
        expect(ids.has(op.operationId!)).toBe(false)
        ids.add(op.operationId!)
        expect(Object.keys(op.responses).some((s) => s.startsWith('4'))).toBe(true)
      }
    }
    expect(doc.components.schemas.Error?.required).toEqual(['error'])
  })

  it.each(SCHEMA.resources.filter((r) => r.writable).map((r) => [r.name, r] as const))(
    'describes the create body of %s with its required fields and no read-only ones',
    (_, resource) => {
      const name = resource.singular.charAt(0).toUpperCase() + resource.singular.slice(1)
      const create = doc.components.schemas[`${name}Create`]!
      expect(create.required!.sort()).toEqual(
        resource.writableFields.filter((f) => resource.fields[f]!.required).sort(),
      )
      expect(Object.keys(create.properties!).sort()).toEqual([...resource.writableFields].sort())
    },
  )
})
