import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Exchange, ResponseValidator } from '../openapi/response-validator.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/** The batch in the OpenAPI documents: v2 describes what it answers; v1 has no batch. */

let server: TestServer
let tenant: Tenant
let validator: ResponseValidator

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  tenant = await server.tenant()
  validator = new ResponseValidator(await (await server.fetch('/api/v2/openapi.json')).json())
})

afterAll(() => server?.stop())

async function exchange(
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Exchange> {
  const target = '/api/v2/batch'
  const response = await tenant.fetch(target, { method, json: body, headers })
  return { method, target, status: response.status, headers: response.headers, body: await response.text() }
}

describe('POST /api/v2/batch in the OpenAPI document', () => {
  it('describes the answers the server sends: 200, a replay, 404, 405, 409, 412 and 422', async () => {
    const author = { method: 'POST', path: '/api/v2/authors', body: { name: 'Le Guin' }, ref: 'a' }
    const book = {
      method: 'POST',
      path: '/api/v2/books',
      body: { title: 'x', authorId: '${a.id}', pages: 1, isbn: 'one' },
    }
    const sent = [
      await exchange('POST', { operations: [author, book] }, { 'Idempotency-Key': 'doc-1' }),
      await exchange('POST', { operations: [author, book] }, { 'Idempotency-Key': 'doc-1' }),
      await exchange('POST', { operations: [{ method: 'DELETE', path: '/api/v2/nothing/x' }] }),
      await exchange('GET', undefined),
      await exchange('POST', { operations: [author, book] }),
      await exchange('POST', {
        operations: [author, { method: 'DELETE', path: '/api/v2/authors/${a.id}', ifMatch: '"x"' }],
      }),
      await exchange('POST', { operations: [] }),
    ]
    expect(sent.map((e) => e.status)).toEqual([200, 200, 404, 405, 409, 412, 422])
    expect(sent.flatMap((e) => validator.check(e))).toEqual([])
  })

  it('is in v2’s document only', async () => {
    const v1 = (await (await server.fetch('/api/v1/openapi.json')).json()) as { paths: object }
    const v2 = (await (await server.fetch('/api/v2/openapi.json')).json()) as { paths: object }
    expect(Object.keys(v1.paths)).not.toContain('/api/v1/batch')
    expect(Object.keys(v2.paths)).toContain('/api/v2/batch')
  })
})
