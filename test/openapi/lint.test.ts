import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

type Operation = { summary?: string; parameters?: { name: string; schema: unknown }[] }
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> }

const ROOT = join(import.meta.dir, '../..')
const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch', 'query', 'x-query']

let server: TestServer
const docs: Record<string, Doc> = {}

beforeAll(async () => {
  server = await startTestServer()
  for (const v of ['v1', 'v2']) docs[v] = (await (await server.fetch(`/api/${v}/openapi.json`)).json()) as Doc
})
afterAll(() => server.stop())

/** `redocly lint` of a served document, by URL, with the repository's redocly.yaml. */
async function redoclyLint(url: string) {
  const lint = Bun.spawn(
    [
      join(ROOT, 'node_modules/.bin/redocly'),
      'lint',
      '--format=json',
      '--config',
      join(ROOT, 'redocly.yaml'),
      url,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  const [out, err] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text()])
  await lint.exited
  if (!out.trim().startsWith('{')) throw new Error(`redocly lint printed no report: ${err}`)
  return JSON.parse(out) as {
    totals: { errors: number; warnings: number }
    problems: { ruleId: string; message: string; location: { pointer: string }[] }[]
  }
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    OPERATIONS.filter((m) => item[m]).map((m) => ({ path, method: m, operation: item[m]! })),
  )

describe.each([
  ['v1', '3.1.0', 'x-query'],
  ['v2', '3.2.0', 'query'],
])('GET /api/%s/openapi.json', (v, openapi, queryField) => {
  it(`is OpenAPI ${openapi}, with QUERY as an operation in ${queryField} on every collection and /search`, () => {
    const doc = docs[v]!
    expect(doc.openapi).toBe(openapi)
    const collections = SCHEMA.resources.map((r) => `/api/${v}/${r.name}`)
    for (const path of [...collections, `/api/${v}/search`, `/api/${v}/users/{parentId}/addresses`]) {
      const query = doc.paths[path]![queryField] as Operation & { requestBody: { content: object } }
      expect(query.summary).toStartWith(path.endsWith('search') ? 'Search' : 'Query')
      expect(Object.keys(query.requestBody.content).sort()).toEqual([
        'application/json',
        'application/jsonpath',
        'application/sql',
        'application/x-www-form-urlencoded',
      ])
    }
    const other = queryField === 'query' ? 'x-query' : 'query'
    expect(Object.values(doc.paths).filter((item) => other in item)).toEqual([])
  })

  it('passes redocly lint (recommended rules, redocly.yaml) without an error or a warning', async () => {
    const report = await redoclyLint(`${server.url}/api/${v}/openapi.json`)
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.location[0]?.pointer}: ${p.message}`)
    expect(problems).toEqual([])
    expect(report.totals.errors).toBe(0)
  }, 30_000)

  it(`is valid against the OpenAPI ${openapi.slice(0, 3)} schema (@seriousme/openapi-schema-validator)`, async () => {
    const validator = new Validator()
    const result = await validator.validate(docs[v] as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe(openapi.slice(0, 3))
  })

  it('gives every operation a summary, with the right article', () => {
    for (const { path, method, operation } of operations(docs[v]!)) {
      expect(`${method} ${path}: ${operation.summary}`).toMatch(/: [A-Z]\S* /)
      expect(operation.summary).not.toMatch(/\ba [aeio]|\ban (?![aeiou])/i)
    }
    expect(docs[v]!.paths[`/api/${v}/orders`]!.post!.summary).toBe('Create an order')
    expect(docs[v]!.paths[`/api/${v}/users`]!.post!.summary).toBe('Create a user')
    expect(docs[v]!.paths[`/api/${v}/users/{parentId}/addresses`]!.post!.summary).toBe(
      'Add an address to a user',
    )
  })

  it('says created_after and created_before take a date or a date-time', () => {
    const params = docs[v]!.paths[`/api/${v}/orders`]!.get!.parameters!
    for (const name of ['created_after', 'created_before', 'updated_after', 'updated_before'])
      expect(params.find((p) => p.name === name)!.schema).toEqual({
        anyOf: [
          { type: 'string', format: 'date' },
          { type: 'string', format: 'date-time' },
        ],
      })
  })
})
