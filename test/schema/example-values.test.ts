import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import type { FieldDeclaration } from '../../shared/resources/fields.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { resourceFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { exampleValue, fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * Tests make records of any collection of any schema from the declaration alone
 * (test/support/example-values.ts): every declared collection of the built-in example and of the
 * library is created with example values (what it references and its parent first), and reads
 * back as it was sent.
 */

/** A field of each type and limit, as a schema file declares it. */
const FIELDS: [string, FieldDeclaration][] = [
  ['text', { type: 'text' }],
  ['text of exactly 2', { type: 'text', min: 2, max: 2 }],
  ['text of at most 5', { type: 'text', max: 5 }],
  ['text of at least 40', { type: 'text', min: 40 }],
  ...['email', 'uri', 'currency', 'country'].map((format): [string, FieldDeclaration] => [
    `text of format ${format}`,
    { type: 'text', format },
  ]),
  ['integer', { type: 'integer' }],
  ['integer from 10 to 12', { type: 'integer', min: 10, max: 12 }],
  ['integer of at most 0', { type: 'integer', min: -5, max: 0 }],
  ['enum', { type: 'enum', values: ['draft', 'final'] }],
  ['boolean', { type: 'boolean' }],
  ['reference', { type: 'reference', to: 'authors' }],
  ['timestamp', { type: 'timestamp' }],
  ['json', { type: 'json' }],
  ['list', { type: 'list' }],
  ['list of one short item', { type: 'list', maxItems: 1, maxLength: 3 }],
]

/** The field a declaration makes, as a schema file's is made. */
const fieldOf = (declaration: FieldDeclaration) =>
  resourceFromDeclaration(
    'things',
    { singular: 'thing', prefix: 'thg', fields: { f: declaration } },
    () => 'aut',
  ).fields.f!

describe('exampleValue', () => {
  it.each(FIELDS)('gives a %s values its schema accepts', (_, declaration) => {
    const field = fieldOf(declaration)
    const values = [0, 1, 30].map((n) => exampleValue(field, n, () => 'aut_01jd3v0m7qf8s9t2w4x6y8z0ab'))
    for (const value of values) expect([value, Value.Check(field.schema, value)]).toEqual([value, true])
  })
})

const SCHEMAS: [string, Schema][] = [
  ['the built-in example', exampleSchema()],
  ['the library', librarySchema()],
]

for (const [label, schema] of SCHEMAS) {
  describe(`records from example values, ${label}`, () => {
    let server: TestServer
    let tenant: Tenant
    beforeAll(async () => {
      server = await startTestServer({ schema })
      tenant = await server.tenant()
    })
    afterAll(() => server?.stop())

    const declared = schema.resources.filter((r) => !r.service)
    it.each(declared.map((r) => [r.name]))('creates a record of %s and reads it back', async (collection) => {
      const made = fixtures(schema, tenant)
      const record = await made.create(collection)
      const read = await tenant.fetch(`/api/v1/${collection}/${record.id}`)
      expect(read.status).toBe(200)
      expect(await read.json()).toEqual(record)
    })
  })
}
