/**
 * The checks of a schema file whose shape is right (file-shape.ts): names, prefixes, parents,
 * fields, actions and GraphQL names, everything the server would otherwise trip over once started.
 * Each problem is one line naming its place in the file.
 */
import type { Resource } from '../resources/define.ts'
import { type ResourceDeclaration, type SchemaDeclaration, SERVICE_RESOURCES } from './declaration.ts'
import { actionProblems } from './file-actions.ts'
import { CAMEL, type FileIndex, fieldProblems } from './file-fields.ts'
import { graphqlProblems } from './file-graphql.ts'
import { place } from './file-place.ts'

/** A collection's name: lowercase words joined by `-` (`line-items`), a path segment as it is. */
const COLLECTION = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
const PREFIX = /^[a-z]{2,4}$/

/** Paths under /api/{version}/ that are the service's, not a collection's. */
const RESERVED_PATHS = [
  'search',
  'openapi.json',
  'batch',
  'aggregates',
  'versions',
  'oauth-clients',
  'graphql',
]

/** The service's tables (its migrations): a collection's table is its name with `_` for `-`. */
const SERVICE_TABLES =
  /^(orgs|settings|signing_keys|idempotency_keys|query_results|stored_queries|(oauth|webhook|schema|sqlite|pg)_.*|.*_fts)$/

/** Id prefixes the service gives its own records, besides its collections'. */
const SERVICE_PREFIXES: Record<string, string> = {
  org: 'organizations',
  clt: 'OAuth clients',
  grt: 'OAuth grants',
  qry: 'stored queries',
}

function nameProblems(name: string, service: readonly Resource[]): string[] {
  const at = place('resources', name)
  if (service.some((r) => r.name === name)) return [`${at}: ${name} is the service's own collection`]
  if (RESERVED_PATHS.includes(name)) return [`${at}: ${name} is reserved (the service's /api/v2/${name})`]
  if (!COLLECTION.test(name))
    return [`${at}: a collection's name is lowercase and plural, words joined by - (books, line-items)`]
  if (SERVICE_TABLES.test(name.replace(/-/g, '_')))
    return [`${at}: ${name} is reserved (the service's storage)`]
  return []
}

/** Singulars and prefixes are unique across the file and the service's own collections. */
function uniquenessProblems(declaration: SchemaDeclaration, service: readonly Resource[]): string[] {
  const problems: string[] = []
  const singulars = new Map(service.map((r) => [r.singular, `the service's ${r.name}`]))
  const prefixes = new Map<string, string>([
    ...service.map((r): [string, string] => [r.prefix, `the service's ${r.name}`]),
    ...Object.entries(SERVICE_PREFIXES).map(([p, what]): [string, string] => [p, `the service's ${what}`]),
  ])
  for (const [name, d] of Object.entries(declaration.resources)) {
    if (!CAMEL.test(d.singular))
      problems.push(`${place('resources', name, 'singular')}: a singular is camelCase (book, lineItem)`)
    else if (singulars.has(d.singular))
      problems.push(
        `${place('resources', name, 'singular')}: ${d.singular} is also the singular of ${singulars.get(d.singular)}`,
      )
    else singulars.set(d.singular, name)
    if (!PREFIX.test(d.prefix))
      problems.push(`${place('resources', name, 'prefix')}: a prefix is 2 to 4 lowercase letters (bok)`)
    else if (prefixes.has(d.prefix))
      problems.push(
        `${place('resources', name, 'prefix')}: ${d.prefix} is also the prefix of ${prefixes.get(d.prefix)}`,
      )
    else prefixes.set(d.prefix, name)
  }
  return problems
}

function parentProblems(
  name: string,
  d: ResourceDeclaration,
  index: FileIndex,
  declaration: SchemaDeclaration,
): string[] {
  const parent = d.parent
  if (!parent) return []
  const at = (key: string) => place('resources', name, 'parent', key)
  if (!index.targets.has(parent.collection))
    return [`${at('collection')}: no collection ${JSON.stringify(parent.collection)}`]
  // A parent chain that comes back to where it started has no top to make a record under.
  const chain = [name]
  for (
    let next = parent.collection;
    declaration.resources[next];
    next = declaration.resources[next]!.parent?.collection ?? ''
  ) {
    chain.push(next)
    if (next === name) return [`${at('collection')}: the parents form a cycle (${chain.join(' -> ')})`]
    if (chain.length > Object.keys(declaration.resources).length + 1) break
  }
  const declared = d.fields[parent.field]
  if (
    declared &&
    (declared.type !== 'reference' || declared.to !== parent.collection || declared.readOnly !== true)
  )
    return [
      `${at('field')}: the field ${parent.field} must be a read-only reference to ${parent.collection} (or left out: it is added)`,
    ]
  return []
}

/** Every problem of a declaration whose shape is right; none when it can be served. */
export function declarationProblems(
  declaration: SchemaDeclaration,
  service: readonly Resource[] = SERVICE_RESOURCES,
): string[] {
  const names = Object.keys(declaration.resources)
  const index: FileIndex = {
    targets: new Set([...names, 'users']),
    prefixOf: (c) => declaration.resources[c]?.prefix ?? service.find((r) => r.name === c)?.prefix ?? c,
  }
  const problems = names.flatMap((name) => nameProblems(name, service))
  problems.push(...uniquenessProblems(declaration, service))
  for (const [name, d] of Object.entries(declaration.resources)) {
    const children = names.filter((c) => declaration.resources[c]!.parent?.collection === name)
    problems.push(
      ...parentProblems(name, d, index, declaration),
      ...fieldProblems(name, d, index),
      ...actionProblems(name, d, children),
    )
  }
  // A name GraphQL derives from a place already wrong (a singular taken) would say it twice.
  const wrong = new Set(problems.map((line) => line.slice(0, line.indexOf(': '))))
  const derived = graphqlProblems(declaration, service).filter(
    (line) => !wrong.has(line.slice(0, line.indexOf(': '))),
  )
  return [...problems, ...derived]
}
