import { filterParams } from '../shared/query/list-params.ts'
import type { Resource } from '../shared/resources/index.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { suggest } from '../shared/suggest.ts'
import { UsageError } from './errors.ts'

// Re-exported: the commands import it from here.
export { suggest }

function collection(schema: Schema, name: string): Resource {
  const resource = schema.byName(name)
  if (resource) return resource
  const hint = suggest(
    name,
    schema.resources.map((r) => r.name),
  )
  throw new UsageError(
    `unknown collection "${name}"${hint ? ` (did you mean ${hint}?)` : ''}; collections: ${schema.resources.map((r) => r.name).join(', ')}`,
  )
}

export interface Target {
  resource: Resource
  /** The API path, e.g. `/api/v2/books/bok_…/chapters` or `/api/v2/books/bok_…`. */
  path: string
  id?: string
}

/**
 * Reads `books`, `books/bok_…`, `books/bok_…/chapters` and `books/bok_…/chapters/chp_…`
 * (an id may also come as the next argument: `api get books bok_…`), as a path under `prefix`
 * (`/api/v2`).
 */
export function parseTarget(schema: Schema, prefix: string, spec: string, id?: string): Target {
  const parts = spec.replace(/^\/+|\/+$/g, '').split('/')
  if (id !== undefined) parts.push(id)
  if (parts.length === 0 || parts.length > 4 || parts.some((p) => p === '')) {
    throw new UsageError(`"${spec}" is not COLLECTION, COLLECTION/ID or PARENT/ID/CHILD[/ID]`)
  }
  const enc = encodeURIComponent
  if (parts.length <= 2) {
    const resource = collection(schema, parts[0]!)
    const path = `${prefix}/${resource.name}${parts[1] ? `/${enc(parts[1])}` : ''}`
    return { resource, path, id: parts[1] }
  }
  const parent = collection(schema, parts[0]!)
  const child = collection(schema, parts[2]!)
  if (child.parent?.collection !== parent.name) {
    throw new UsageError(`${child.name} is not nested under ${parent.name}`)
  }
  const path = `${prefix}/${parent.name}/${enc(parts[1]!)}/${child.name}${parts[3] ? `/${enc(parts[3])}` : ''}`
  return { resource: child, path, id: parts[3] }
}

/** The filter flags of a collection (`--status`, `--amount-gte`, `--created-after`), from its declaration. */
export function filterFlags(
  resource: Resource,
): { flag: string; param: string; field: string; op: string }[] {
  return filterParams(resource).map((p) => ({
    flag: p.name.replace(/_/g, '-'),
    param: p.name,
    field: p.field,
    op: p.op,
  }))
}

/**
 * The filters `api list` and `api delete` take for a collection, as typed without `--`: its filter
 * flags, and `q` when it has searchable fields (the server's bulk delete takes them all).
 */
export function filterOptions(resource: Resource): string[] {
  return [...filterFlags(resource).map((f) => f.flag), ...(resource.searchable.length > 0 ? ['q'] : [])]
}

/**
 * Columns of a table: the id and every declared field but JSON ones, creation time last; a
 * declared object by its keys (`actor.type`, `actor.id`).
 */
export function columnsOf(resource: Resource): string[] {
  return [
    'id',
    ...resource.presented.flatMap((name) => {
      const members = resource.objects[name]
      if (members) return Object.keys(members).map((key) => `${name}.${key}`)
      return resource.fields[name]!.kind === 'json' ? [] : [name]
    }),
    'createdAt',
  ]
}
