import { type ApiError, badRequest, insufficientScope } from '../errors.ts'
import type { Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import { camelCase } from './fields.ts'
import { DEFAULT_LIMIT, MAX_LIMIT } from './types.ts'

/**
 * Reads shaped by the client: `fields=id,status,user.name` (sparse fieldsets) and
 * `expand=user,lineItems.product` (related records inline), on every read of records. The
 * relations derive from the declarations: a reference field `userId` expands as `user`, a nested
 * collection (`line-items` under `orders`) as `lineItems`, the first page of its children.
 */

/** The parameters that shape a read, as given (a GET's query string, a QUERY's form or JSON body). */
export const SHAPE_PARAMS = ['fields', 'expand', 'expand_limit'] as const

export interface ShapeParams {
  fields: string | null
  expand: string | null
  expandLimit: string | null
}

/** How far `expand` reaches: `lineItems.product`, not further. */
const MAX_EXPAND_DEPTH = 2
const MAX_NAMES = 100
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

interface Relation {
  /** The name in `expand` and in the record (`user`, `lineItems`). */
  name: string
  kind: 'reference' | 'children'
  target: Resource
  /** The reference field on the record (`userId`), or the children's parent field (`orderId`). */
  field: string
}

export interface Expansion {
  relation: Relation
  /** What the related records show: their own `fields` (`user.name`) and expansions. */
  shape: Shape
}

export interface Shape {
  /** The fields each record shows, `id` first; null for all of them. */
  fields: string[] | null
  expand: Expansion[]
  /** Children per expanded nested collection (`expand_limit`, 1..100, 20 by default). */
  limit: number
}

/** The JSON field names a record of a resource has in the request's version (`id` and the timestamps included). */
type FieldNames = (resource: Resource) => readonly string[]

/** The base (v1) field names: every field a record shows (an event's `actor` as one) and the system fields. */
export const baseFieldNames: FieldNames = (resource) => [
  'id',
  ...resource.presented,
  'createdAt',
  'updatedAt',
]

const relationCache = new WeakMap<Schema, Map<string, Relation[]>>()

/** The relations a record of `resource` can expand, derived from its declaration in `schema`. */
export function relationsOf(schema: Schema, resource: Resource): Relation[] {
  let cache = relationCache.get(schema)
  if (!cache) {
    cache = new Map()
    relationCache.set(schema, cache)
  }
  let relations = cache.get(resource.name)
  if (!relations) {
    relations = []
    for (const [name, field] of Object.entries(resource.fields)) {
      const target = field.references ? schema.byName(field.references) : undefined
      if (target && /^[a-z][A-Za-z0-9]*Id$/.test(name))
        relations.push({ name: name.slice(0, -2), kind: 'reference', target, field: name })
    }
    for (const child of schema.childrenOf(resource)) {
      relations.push({
        name: camelCase(child.name.replace(/-/g, '_')),
        kind: 'children',
        target: child,
        field: child.parent!.field,
      })
    }
    cache.set(resource.name, relations)
  }
  return relations
}

const fail = (param: string, message: string) =>
  badRequest(`The ${param} parameter is not valid: ${message}.`, [{ field: param, message }])

function names(param: string, raw: string): string[] {
  const parts = raw.split(',').map((part) => part.trim())
  if (parts.length > MAX_NAMES) throw fail(param, `at most ${MAX_NAMES} names`)
  for (const part of parts) {
    if (part === '') throw fail(param, 'names must not be empty (a,b)')
    for (const segment of part.split('.')) {
      if (!NAME.test(segment)) throw fail(param, `"${part.slice(0, 80)}" is not a name`)
    }
  }
  return parts
}

const listed = (values: readonly string[]) => values.join(', ') || 'none'

/**
 * Parses `fields`, `expand` and `expand_limit` for records of `resource`, with the field names of
 * `namesOf` (a version's). Names may be camelCase or snake_case. 400 naming the parameter for an
 * unknown field or relation, a field of a relation that is not expanded, or expansion deeper than
 * two levels.
 */
export function parseShape(
  schema: Schema,
  resource: Resource,
  params: ShapeParams,
  namesOf: FieldNames = baseFieldNames,
): Shape {
  let limit = DEFAULT_LIMIT
  if (params.expandLimit !== null) {
    const raw = params.expandLimit
    if (params.expand === null) throw fail('expand_limit', 'applies only with expand')
    if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT)
      throw fail('expand_limit', `must be a whole number from 1 to ${MAX_LIMIT}`)
    limit = Number(raw)
  }
  const root: Shape = { fields: null, expand: [], limit }
  // Expansions first: `fields` may name fields inside them.
  if (params.expand !== null) {
    for (const path of names('expand', params.expand)) {
      const segments = path.split('.').map(camelCase)
      if (segments.length > MAX_EXPAND_DEPTH)
        throw fail('expand', `${path} is more than ${MAX_EXPAND_DEPTH} levels deep`)
      let shape = root
      let from = resource
      for (const segment of segments) {
        const relations = relationsOf(schema, from)
        const relation = relations.find((r) => r.name === segment)
        if (!relation) {
          throw fail(
            'expand',
            `${segment} is not a relation of ${from.name} (relations: ${listed(relations.map((r) => r.name))})`,
          )
        }
        let expansion = shape.expand.find((e) => e.relation.name === segment)
        if (!expansion) {
          expansion = { relation, shape: { fields: null, expand: [], limit } }
          shape.expand.push(expansion)
        }
        shape = expansion.shape
        from = relation.target
      }
    }
  }
  if (params.fields !== null) {
    const chosen = new Map<Shape, Set<string>>()
    for (const path of names('fields', params.fields)) {
      const segments = path.split('.').map(camelCase)
      let shape = root
      let from = resource
      for (const segment of segments.slice(0, -1)) {
        const expansion = shape.expand.find((e) => e.relation.name === segment)
        if (!expansion) {
          const isRelation = relationsOf(schema, from).some((r) => r.name === segment)
          throw fail(
            'fields',
            isRelation
              ? `${path} names a field of ${segment}, which needs expand=${segment}`
              : `${segment} is not an expanded relation of ${from.name}`,
          )
        }
        shape = expansion.shape
        from = expansion.relation.target
      }
      const name = segments.at(-1)!
      // An expanded relation may be named too: it is shown whole, as without `fields`.
      if (shape.expand.some((e) => e.relation.name === name)) continue
      const known = namesOf(from)
      if (!known.includes(name)) {
        throw fail('fields', `${path} is not a field of ${from.name} (fields: ${listed(known)})`)
      }
      const set = chosen.get(shape) ?? new Set<string>()
      chosen.set(shape, set.add(name))
    }
    for (const [shape, set] of chosen) shape.fields = ['id', ...[...set].filter((f) => f !== 'id')]
  }
  return root
}

/**
 * `fields` of a search across collections (`/search?q=`): names of fields of any of `resources`;
 * each hit's record shows those it has. Expanding needs one collection (`collection=`): 400.
 */
export function parseAcrossFields(
  params: ShapeParams,
  resources: readonly Resource[],
  namesOf: FieldNames = baseFieldNames,
): string[] | null {
  for (const [param, value] of [
    ['expand', params.expand],
    ['expand_limit', params.expandLimit],
  ] as const) {
    if (value !== null) throw fail(param, 'needs collection: a search across collections does not expand')
  }
  if (params.fields === null) return null
  const known = new Set(resources.flatMap(namesOf))
  const fields = new Set<string>(['id'])
  for (const path of names('fields', params.fields)) {
    const name = camelCase(path)
    if (!known.has(name)) throw fail('fields', `${path} is not a field of a searchable collection`)
    fields.add(name)
  }
  return [...fields]
}

/** The shape parameters of a query string or body, or undefined when none is given. */
export function shapeParamsOf(params: URLSearchParams): ShapeParams | undefined {
  const fields = params.get('fields')
  const expand = params.get('expand')
  const expandLimit = params.get('expand_limit')
  if (fields === null && expand === null && expandLimit === null) return undefined
  return { fields, expand, expandLimit }
}

/** Every relation a shape expands, with its path (`lineItems.product`), outermost first. */
export function expansionsOf(shape: Shape, prefix = ''): { path: string; expansion: Expansion }[] {
  return shape.expand.flatMap((expansion) => {
    const path = `${prefix}${expansion.relation.name}`
    return [{ path, expansion }, ...expansionsOf(expansion.shape, `${path}.`)]
  })
}

/** 403 for an expansion the token may not read, naming the relation and the scope it needs. */
export function expansionForbidden(path: string, scope: string): ApiError {
  return insufficientScope(scope, `Expanding ${path} needs the scope ${scope} (insufficient_scope).`, [
    { field: 'expand', message: `${path} requires ${scope}` },
  ])
}

/** The query string that asks for `shape` again (the `next` page of an expanded nested collection). */
export function shapeQuery(shape: Shape): string {
  const parts: string[] = []
  const fields: string[] = []
  const collect = (s: Shape, prefix: string) => {
    if (s.fields) fields.push(...s.fields.map((f) => `${prefix}${f}`))
    for (const e of s.expand) collect(e.shape, `${prefix}${e.relation.name}.`)
  }
  collect(shape, '')
  if (fields.length > 0) parts.push(`fields=${fields.join(',')}`)
  const expand = expansionsOf(shape).map((e) => e.path)
  if (expand.length > 0) parts.push(`expand=${expand.join(',')}`)
  return parts.join('&')
}
