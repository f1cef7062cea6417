/**
 * The names a collection gives in GraphQL, derived as server/graphql/ derives them (names.ts,
 * types.ts, schema.ts, actions.ts, connections.ts, search.ts), so a schema file whose collections
 * would give one name twice is refused before the server starts rather than when GraphQL is first
 * asked. test/schema/file-graphql.test.ts holds the two derivations equal.
 */
import { camelCase } from '../query/fields.ts'
import type { Resource } from '../resources/define.ts'
import { pascal } from '../words.ts'
import type { ResourceDeclaration, SchemaDeclaration } from './declaration.ts'
import { place } from './file-place.ts'

/** The service's own GraphQL names, whatever the schema: scalars, roots, `Node`, pagination, search. */
const SERVICE_NAMES = [
  ...['ID', 'String', 'Boolean', 'Int', 'Float', 'SafeInt', 'DateTime', 'JSON'],
  ...['Query', 'Mutation', 'Subscription', 'Node', 'PageInfo'],
  ...['SearchResult', 'SearchResultConnection', 'SearchResultEdge'],
].map((name) => `type ${name}`)
const SERVICE_QUERIES = ['node', 'nodes', 'search'].map((name) => `query field ${name}`)

interface Named {
  /** `type Book`, `query field books`, `mutation lendBook`. */
  name: string
  /** The place in the file it comes from. */
  at: string
}

/** What the derivation needs of a collection, declared or the service's own. */
interface Collection {
  name: string
  singular: string
  writable: boolean
  enums: readonly string[]
  objects: readonly string[]
  actions: readonly string[]
  /** Whether it has an integer field (its aggregates then have `sum` and `avg`). */
  integers: boolean
}

/** Every GraphQL name a collection gives, each with its place. */
export function graphqlNamesOf(c: Collection, at: (...keys: string[]) => string): Named[] {
  const type = pascal(c.singular)
  const names: Named[] = [
    ...[type, `${type}Connection`, `${type}Edge`].map((t) => ({ name: `type ${t}`, at: at('singular') })),
    { name: `query field ${c.singular}`, at: at('singular') },
    { name: `query field ${camelCase(c.name.replace(/-/g, '_'))}`, at: at() },
    ...c.enums.map((f) => ({ name: `type ${type}${pascal(f)}`, at: at('fields', f) })),
    ...c.objects.map((o) => ({ name: `type ${type}${pascal(o)}`, at: at() })),
    // Its aggregates (server/graphql/aggregate-types.ts).
    { name: `query field ${camelCase(c.name.replace(/-/g, '_'))}Aggregate`, at: at() },
    ...[
      'GroupBy',
      'Aggregate',
      'AggregateKey',
      'AggregateBounds',
      ...(c.integers ? ['AggregateSum', 'AggregateAvg'] : []),
    ].map((suffix) => ({ name: `type ${type}${suffix}`, at: at('singular') })),
  ]
  if (c.writable)
    for (const mode of ['create', 'update', 'replace'])
      names.push(
        { name: `type ${pascal(mode)}${type}Input`, at: at('singular') },
        { name: `mutation ${mode}${type}`, at: at('singular') },
      )
  if (c.writable) names.push({ name: `mutation delete${type}`, at: at('singular') })
  for (const action of c.actions) {
    const [first, ...rest] = action.split('-')
    names.push({ name: `mutation ${first}${rest.map(pascal).join('')}${type}`, at: at('actions', action) })
  }
  return names
}

/** A service collection as the derivation sees it. */
export const serviceCollection = (r: Resource): Collection => ({
  name: r.name,
  singular: r.singular,
  writable: r.writable,
  enums: Object.keys(r.fields).filter((f) => r.fields[f]!.kind === 'enum'),
  objects: Object.keys(r.objects),
  actions: r.actions.map((a) => a.name),
  integers: Object.values(r.fields).some((f) => f.kind === 'integer'),
})

const declaredCollection = (name: string, d: ResourceDeclaration): Collection => ({
  name,
  singular: d.singular,
  writable: true,
  enums: Object.keys(d.fields).filter((f) => d.fields[f]!.type === 'enum'),
  objects: [],
  actions: Object.keys(d.actions ?? {}).filter((a) => a !== '$comment'),
  integers: Object.values(d.fields).some((f) => f.type === 'integer'),
})

/** The names inside one record type: its fields, the relations of its references, its nested collections. */
function memberProblems(name: string, d: ResourceDeclaration, declaration: SchemaDeclaration): string[] {
  const problems: string[] = []
  const members = new Map<string, string>(['id', 'createdAt', 'updatedAt'].map((m) => [m, 'every record']))
  for (const field of Object.keys(d.fields)) members.set(field, `the field ${field}`)
  for (const [field, f] of Object.entries(d.fields)) {
    if (f.type !== 'reference' || !/Id$/.test(field)) continue
    const relation = field.slice(0, -2)
    const taken = members.get(relation)
    if (taken)
      problems.push(
        `${place('resources', name, 'fields', field)}: its relation ${relation} clashes with ${taken}`,
      )
    else members.set(relation, `the relation of ${field}`)
  }
  for (const [child, c] of Object.entries(declaration.resources)) {
    if (c.parent?.collection !== name) continue
    const member = camelCase(child.replace(/-/g, '_'))
    const taken = members.get(member)
    if (taken)
      problems.push(
        `${place('resources', child)}: nested under ${name} as ${member}, which clashes with ${taken}`,
      )
    else members.set(member, `the nested collection ${child}`)
  }
  return problems
}

/** Every GraphQL name the declared collections would give twice, or take from the service. */
export function graphqlProblems(declaration: SchemaDeclaration, service: readonly Resource[]): string[] {
  const owners = new Map<string, string>()
  for (const name of [...SERVICE_NAMES, ...SERVICE_QUERIES]) owners.set(name, 'the service')
  for (const r of service)
    for (const { name } of graphqlNamesOf(serviceCollection(r), () => ''))
      owners.set(name, `the service's ${r.name}`)
  const problems: string[] = []
  for (const [name, d] of Object.entries(declaration.resources)) {
    const at = (...keys: string[]) => place('resources', name, ...keys)
    for (const named of graphqlNamesOf(declaredCollection(name, d), at)) {
      const owner = owners.get(named.name)
      if (owner === undefined) owners.set(named.name, name)
      else if (owner !== name)
        problems.push(
          `${named.at}: gives the GraphQL ${named.name}, which ${owner} ${owner.startsWith('the service') ? 'has' : 'gives too'}`,
        )
      else problems.push(`${named.at}: gives the GraphQL ${named.name} twice`)
    }
    problems.push(...memberProblems(name, d, declaration))
  }
  return [...new Set(problems)]
}
