/**
 * The schema file's check derives GraphQL names without building GraphQL (shared/ imports nothing
 * from server/): these derivations must be the ones server/graphql/ makes, or a clash would pass the
 * check and break the server. Compared on the built-in example and on the library.
 */
import { describe, expect, it } from 'bun:test'
import { buildSchema } from '../../server/graphql/schema.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { graphqlNamesOf, serviceCollection } from '../../shared/schema/file-graphql.ts'
import library from './files/library.json' with { type: 'json' }

const FIXED_TYPES = [
  'ID',
  'String',
  'Boolean',
  'Int',
  'Float',
  'SafeInt',
  'DateTime',
  'JSON',
  'Query',
  'Mutation',
  'Subscription',
  'Node',
  'PageInfo',
  'SearchResult',
  'SearchResultConnection',
  'SearchResultEdge',
]

describe('the GraphQL names the schema file check derives', () => {
  for (const [name, schema] of [
    ['the built-in example', exampleSchema()],
    ['the library', schemaFromDeclaration(library as SchemaDeclaration)],
  ] as const) {
    it(`are the names GraphQL gives ${name}`, () => {
      const built = buildSchema(schema.resources)
      const derived = schema.resources.flatMap((r) =>
        graphqlNamesOf(serviceCollection(r), () => '').map((n) => n.name),
      )
      const kind = (prefix: string) =>
        derived
          .filter((n) => n.startsWith(prefix))
          .map((n) => n.slice(prefix.length))
          .sort()
      const types = Object.keys(built.getTypeMap()).filter(
        (t) => !t.startsWith('__') && !FIXED_TYPES.includes(t),
      )
      expect(kind('type ')).toEqual(types.sort())
      expect(kind('query field ')).toEqual(
        Object.keys(built.getQueryType()!.getFields())
          .filter((f) => !['node', 'nodes', 'search'].includes(f))
          .sort(),
      )
      expect(kind('mutation ')).toEqual(Object.keys(built.getMutationType()!.getFields()).sort())
    })
  }
})
