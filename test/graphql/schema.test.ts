import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { type GraphQLEnumType, type GraphQLObjectType, getNamedType, isNonNullType } from 'graphql'
import { SCHEMA_END, SCHEMA_START, withSchema } from '../../scripts/print-schema.ts'
import { enumValueNames, pluralField, typeName } from '../../server/graphql/names.ts'
import { buildSchema, printServiceSchema, serviceSchema } from '../../server/graphql/schema.ts'
import { filterParams } from '../../shared/query/list-params.ts'
import { defineResource } from '../../shared/resources/define.ts'
import { enumeration, integer, reference } from '../../shared/resources/fields.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

const schema = serviceSchema(SCHEMA)
const query = schema.getQueryType()!.getFields()
const mutation = schema.getMutationType()!.getFields()
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

describe('the schema is generated from the resource declarations', () => {
  it.each(SCHEMA.resources.map((r) => [r.name, r] as const))(
    '%s: type, singular and plural fields, filters as arguments',
    (_, r) => {
      const type = schema.getType(typeName(r)) as GraphQLObjectType
      const fields = Object.keys(type.getFields())
      expect(fields).toEqual(expect.arrayContaining(['id', ...r.presented, 'createdAt', 'updatedAt']))
      expect(query[r.singular]!.args.map((a) => a.name)).toEqual(['id'])
      const plural = query[pluralField(r)]!
      expect(getNamedType(plural.type).name).toBe(`${typeName(r)}Connection`)
      const args = plural.args.map((a) => a.name)
      expect(args).toEqual(
        expect.arrayContaining(['first', 'after', 'sort', ...filterParams(r).map((p) => camel(p.name))]),
      )
      expect(args.includes('q')).toBe(r.searchable.length > 0)
    },
  )

  it.each(SCHEMA.resources.map((r) => [r.name, r] as const))(
    '%s: create, update, replace and delete only when writable',
    (_, r) => {
      const name = typeName(r)
      const names = [`create${name}`, `update${name}`, `replace${name}`, `delete${name}`]
      for (const m of names) expect(m in mutation).toBe(r.writable)
    },
  )

  it.each(SCHEMA.resources.map((r) => [typeName(r)]))(
    'gives %sConnection nodes, edges { cursor node }, pageInfo { hasNextPage endCursor } and totalCount',
    (type) => {
      const connection = schema.getType(`${type}Connection`) as GraphQLObjectType
      expect(Object.keys(connection.getFields())).toEqual(['nodes', 'edges', 'pageInfo', 'totalCount'])
      const edge = schema.getType(`${type}Edge`) as GraphQLObjectType
      expect(Object.keys(edge.getFields())).toEqual(['cursor', 'node'])
      expect(Object.keys((schema.getType('PageInfo') as GraphQLObjectType).getFields())).toEqual([
        'hasNextPage',
        'endCursor',
      ])
    },
  )

  // Every integer field of the schema: Int when its declared range fits 32 bits, SafeInt otherwise.
  const integers = SCHEMA.resources.flatMap((r) =>
    Object.entries(r.fields)
      .filter(([, f]) => f.kind === 'integer')
      .map(([name, f]) => {
        const { min = 0, max = Number.MAX_SAFE_INTEGER } = f.declaration
        const fits = min >= -(2 ** 31) && max <= 2 ** 31 - 1
        return [`${typeName(r)}.${name}`, `${fits ? 'Int' : 'SafeInt'}${f.nullable ? '' : '!'}`] as const
      }),
  )
  it.each(integers)('types the integer %s as %s, by its declared range', (path, expected) => {
    const [type, field] = path.split('.')
    expect(String((schema.getType(type!) as GraphQLObjectType).getFields()[field!]!.type)).toBe(expected)
  })

  it('has both kinds of integers to type', () => {
    expect(new Set(integers.map(([, t]) => t.replace('!', '')))).toEqual(new Set(['Int', 'SafeInt']))
  })

  const enums = SCHEMA.resources.flatMap((r) =>
    Object.entries(r.fields)
      .filter(([, f]) => f.kind === 'enum')
      .map(
        ([name, f]) => [`${typeName(r)}${name.charAt(0).toUpperCase()}${name.slice(1)}`, f.values!] as const,
      ),
  )
  it.each(enums)('keeps the REST values of %s as GraphQL enum values', (type, values) => {
    const status = schema.getType(type) as GraphQLEnumType
    expect(status.getValues().map((v) => v.value)).toEqual([...values])
  })
  it('has the contract subscription events(types, after)', () => {
    const events = schema.getSubscriptionType()!.getFields().events!
    expect(events.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['types: [String!]', 'after: ID'])
    expect(isNonNullType(events.type)).toBe(true)
    const fields = Object.keys((getNamedType(events.type) as GraphQLObjectType).getFields())
    expect(fields).toEqual(
      expect.arrayContaining(['id', 'type', 'resourceId', 'data', 'actor', 'requestId', 'createdAt']),
    )
  })

  it("types an event's actor as an object of an enum type and an id, null for events before actors", () => {
    const event = (schema.getType('Event') as GraphQLObjectType).getFields()
    expect(String(event.actor!.type)).toBe('EventActor')
    expect(String(event.requestId!.type)).toBe('String')
    const actor = (schema.getType('EventActor') as GraphQLObjectType).getFields()
    expect(Object.entries(actor).map(([name, f]) => `${name}: ${f.type}`)).toEqual([
      'type: EventActorType!',
      'id: String!',
    ])
    const types = schema.getType('EventActorType') as GraphQLEnumType
    expect(types.getValues().map((v) => v.value)).toEqual(['user', 'client', 'system'])
  })
})

describe('a new declaration appears in GraphQL with no GraphQL code', () => {
  const invoices = defineResource({
    name: 'invoices',
    singular: 'invoice',
    prefix: 'inv',
    parent: { collection: 'orders', field: 'orderId' },
    fields: {
      orderId: reference('orders', 'ord', { readOnly: true, filter: 'eq' }),
      state: enumeration(['draft', 'in-review', 'sent'], { default: 'draft', filter: 'eq' }),
      total: integer({ max: 1000, filter: 'range', sort: true }),
    },
  })
  const extended = buildSchema([...SCHEMA.resources, invoices])

  it('as a type, queries, mutations, a relation and a nested connection', () => {
    const q = extended.getQueryType()!.getFields()
    expect(q.invoice).toBeDefined()
    expect(q.invoices!.args.map((a) => a.name)).toEqual(
      expect.arrayContaining(['orderId', 'state', 'totalGte', 'totalLte', 'createdAfter']),
    )
    const m = extended.getMutationType()!.getFields()
    expect(m.createInvoice!.args.map((a) => `${a.name}: ${a.type}`)).toEqual([
      'orderId: ID!',
      'input: CreateInvoiceInput!',
    ])
    const invoice = (extended.getType('Invoice') as GraphQLObjectType).getFields()
    expect(String(invoice.order!.type)).toBe('Order')
    expect(String(invoice.total!.type)).toBe('Int!')
    const order = (extended.getType('Order') as GraphQLObjectType).getFields()
    expect(String(order.invoices!.type)).toBe('InvoiceConnection!')
  })

  it('with enum values that are not GraphQL names renamed, still meaning the REST value', () => {
    const state = extended.getType('InvoiceState') as GraphQLEnumType
    expect(state.getValues().map((v) => [v.name, v.value])).toEqual([
      ['draft', 'draft'],
      ['in_review', 'in-review'],
      ['sent', 'sent'],
    ])
  })
})

describe('enum value names', () => {
  it.each([
    ['paid', 'paid'],
    ['line-items', 'line_items'],
    ['2fa', '_2fa'],
    ['null', '_null'],
  ])('names %s as %s', (value, name) => {
    expect(enumValueNames([value]).get(value)).toBe(name)
  })

  it('refuses values that would share a name', () => {
    expect(() => enumValueNames(['a-b', 'a_b'])).toThrow(/twice/)
  })
})

describe('docs/graphql.md', () => {
  it('shows the schema exactly as generated (bun scripts/print-schema.ts --write docs/graphql.md)', () => {
    const doc = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8')
    expect(doc).toContain(SCHEMA_START)
    expect(doc).toContain(SCHEMA_END)
    expect(doc).toBe(withSchema(doc, printServiceSchema(SCHEMA)))
  })
})
