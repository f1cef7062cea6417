import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { VERSIONS } from '../../server/versions/versions.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/**
 * A PATCH body changes only what it carries, so none of its fields has a `default`: generators
 * (openapi-typescript) make a field with a default required, and a typed partial update would then
 * have to send every defaulted field (docs/api.md, "The OpenAPI documents").
 */

type Json = Record<string, unknown>

let server: TestServer
const docs = new Map<string, Json>()

beforeAll(async () => {
  server = await startTestServer()
  for (const version of VERSIONS)
    docs.set(version.name, (await (await server.fetch(`${version.prefix}/openapi.json`)).json()) as Json)
})
afterAll(() => server.stop())

/** The schema a `$ref` (`#/components/schemas/OrderPatch`) points to, or the schema itself. */
function resolve(doc: Json, schema: Json): Json {
  let at = schema
  while (typeof at.$ref === 'string') {
    at = doc
    for (const part of (schema.$ref as string).slice(2).split('/')) at = at[part] as Json
    schema = at
  }
  return at
}

/** The JSON pointers of every `default` in a schema, following references into components. */
function defaultsIn(doc: Json, schema: unknown, at: string, seen = new Set<unknown>()): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return []
  seen.add(schema)
  if (Array.isArray(schema)) return schema.flatMap((s, i) => defaultsIn(doc, s, `${at}/${i}`, seen))
  const object = schema as Json
  if (typeof object.$ref === 'string') return defaultsIn(doc, resolve(doc, object), object.$ref, seen)
  const found = 'default' in object ? [`${at}/default`] : []
  // `example`s are data, not schemas.
  for (const [key, value] of Object.entries(object))
    if (key !== 'example' && key !== 'examples') found.push(...defaultsIn(doc, value, `${at}/${key}`, seen))
  return found
}

describe.each(VERSIONS.map((v) => [v.name] as const))('the PATCH bodies of /api/%s/openapi.json', (name) => {
  it('have no default anywhere in their schemas', () => {
    const doc = docs.get(name)!
    const found: string[] = []
    let patches = 0
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const patch = item.patch as { requestBody?: { content: Record<string, { schema: Json }> } } | undefined
      if (!patch?.requestBody) continue
      patches += 1
      for (const [type, { schema }] of Object.entries(patch.requestBody.content))
        found.push(...defaultsIn(doc, schema, `${path} PATCH ${type}`))
    }
    expect(patches).toBeGreaterThan(5)
    expect(found).toEqual([])
  })

  it('still show the defaults of a create, where an omitted field takes them', () => {
    const schemas = (docs.get(name)!.components as Json).schemas as Record<string, Json>
    const properties = schemas.UserCreate!.properties as Record<string, Json>
    expect(properties.role!.default).toBe('member')
  })
})
