/**
 * What the CLI learns from a server's OpenAPI document (shared/learn/from-openapi.ts) is what the
 * server declares: for every collection of the built-in example, read from a real server's v1 and
 * v2 documents, the same fields, filters, sort and search fields, required and writable fields,
 * enum values, references, parent and actions as the example's own declaration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SERVICE_COLLECTIONS, schemaOfLearned } from '../../cli/learn/schema.ts'
import { learnFromDocument } from '../../shared/learn/from-openapi.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { example } from '../support/example.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
const learned: Record<string, Schema> = {}

beforeAll(async () => {
  server = await startTestServer()
  for (const version of ['v1', 'v2']) {
    const document = await (await server.fetch(`/api/${version}/openapi.json`)).json()
    learned[version] = schemaOfLearned(learnFromDocument(document, `/api/${version}`, SERVICE_COLLECTIONS))
  }
})
afterAll(() => server.stop())

/** What the CLI uses of a collection, with v2's money fields' currencies left out where v2 folds them. */
function outline(resource: Resource, folded: readonly string[]) {
  const kept = (names: readonly string[]) => names.filter((n) => !folded.includes(n))
  return {
    fields: Object.fromEntries(
      kept(Object.keys(resource.fields))
        .sort()
        .map((name) => {
          const f = resource.fields[name]!
          return [name, { kind: f.kind, values: f.values, references: f.references, filter: f.filter }]
        }),
    ),
    sortable: resource.sortable,
    searchable: resource.searchable,
    writable: kept(resource.writableFields),
    required: kept(resource.writableFields.filter((n) => resource.fields[n]!.required)),
    parent: resource.parent,
    actions: resource.actions.map((a) => a.name),
  }
}

describe('the collections learned from the example server', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`are the example's, from the ${version} document`, () => {
      const schema = learned[version]!
      for (const resource of schema.resources.filter((r) => !r.service)) {
        const declared = example(resource.name)
        // v2 shows an amount and its currency as one money object (server/versions/money.ts).
        const folded =
          version === 'v2'
            ? Object.values(declared.fields).flatMap((f) => (f.currencyField ? [f.currencyField] : []))
            : []
        expect([resource.name, outline(resource, folded)]).toEqual([resource.name, outline(declared, folded)])
      }
      expect(schema.resources.map((r) => r.name)).toContain('line-items')
    })
  }
})
