import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql'
import { ApiError } from '../../shared/errors.ts'
import { filterParams, parseListParams } from '../../shared/query/list-params.ts'
import { DEFAULT_LIMIT, type ListQuery, MAX_LIMIT } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { argumentName } from './names.ts'
import { DateTime } from './scalars.ts'
import type { TypeKit } from './types.ts'

/**
 * The arguments of a plural field are the REST list parameters in camelCase: `first` (REST
 * `limit`), `after` (REST `cursor`, the engine's signed cursor), `sort`, `q` and every declared
 * filter (`status`, `amountGte`, `createdAfter`). They are turned back into the REST parameters and
 * parsed by the same code, so the two front doors accept and reject exactly the same things.
 */

const RENAMED: Record<string, string> = { limit: 'first', cursor: 'after' }

interface ArgParam {
  arg: string
  param: string
}

const paramsCache = new WeakMap<Resource, Map<boolean, ArgParam[]>>()

/** The filter arguments of a resource's list and their REST names; worked out once per resource. */
function paramsOf(resource: Resource, nested: boolean): ArgParam[] {
  let byNesting = paramsCache.get(resource)
  if (!byNesting) {
    byNesting = new Map()
    paramsCache.set(resource, byNesting)
  }
  let list = byNesting.get(nested)
  if (!list) {
    const own = filterParams(resource).filter((p) => !(nested && p.field === resource.parent?.field))
    list = own.map((p) => ({ arg: argumentName(p.name), param: p.name }))
    if (resource.searchable.length > 0) list.push({ arg: 'q', param: 'q' })
    byNesting.set(nested, list)
  }
  return list
}

/** The arguments of `orders(...)`, or of `order.lineItems(...)` when `nested` (no parent filter there). */
export function listArgs(kit: TypeKit, resource: Resource, nested = false): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {
    first: {
      type: GraphQLInt,
      defaultValue: DEFAULT_LIMIT,
      description: `Page size, 1 to ${MAX_LIMIT}.`,
    },
    after: {
      type: GraphQLString,
      description: 'Continue after this cursor (`pageInfo.endCursor` or an edge `cursor`).',
    },
    sort: {
      type: GraphQLString,
      description: `Sort keys, as REST: field, -field or field:asc|desc, comma-separated. Sortable: ${resource.sortable.join(', ')}. Default -createdAt.`,
    },
  }
  for (const param of filterParams(resource)) {
    if (nested && param.field === resource.parent?.field) continue
    const field = resource.fields[param.field]
    // Equality on enums and references takes several values, as REST's `status=paid,shipped`; a
    // single value is a list of one (GraphQL input coercion).
    const many = param.op === 'eq' && (field?.kind === 'enum' || field?.kind === 'reference')
    const type: GraphQLInputType = !field
      ? DateTime
      : many
        ? new GraphQLList(new GraphQLNonNull(kit.scalar(resource, param.field)))
        : kit.scalar(resource, param.field)
    args[argumentName(param.name)] = { type }
  }
  if (resource.searchable.length > 0) {
    args.q = {
      type: GraphQLString,
      description: `Full-text search over ${resource.searchable.join(', ')}.`,
    }
  }
  return args
}

const text = (value: unknown) => (Array.isArray(value) ? value.map(String).join(',') : String(value))

/**
 * Runs `read` with REST's parameter names in its errors turned into the arguments' names
 * (`limit` -> `first`, `cursor` -> `after`, `amount_gte` -> `amountGte`); only the first two
 * without a resource (`search`).
 */
export function withArgumentNames<T>(resource: Resource | undefined, nested: boolean, read: () => T): T {
  const renamed = (error: unknown): unknown => {
    if (!(error instanceof ApiError)) return error
    const names = new Map(resource ? paramsOf(resource, nested).map((k) => [k.param, k.arg]) : [])
    const rename = (field: string) => RENAMED[field] ?? names.get(field) ?? field
    // new ApiError: the same error, of any code, in the arguments' words.
    return new ApiError(
      error.code,
      error.message
        .replace(/\b(limit|cursor)\b/g, (m) => RENAMED[m]!)
        .replace(/\bparameters?\b/g, (m) => m.replace('parameter', 'argument')),
      { details: error.details.map((d) => ({ field: rename(d.field), message: d.message })), cause: error },
    )
  }
  try {
    const result = read()
    // A page read from the store settles later: its errors are renamed as they arrive.
    return (
      result instanceof Promise
        ? result.catch((error: unknown) => {
            throw renamed(error)
          })
        : result
    ) as T
  } catch (error) {
    throw renamed(error)
  }
}

/**
 * The internal query for a plural field's arguments. `includeTotal` when `totalCount` is selected:
 * nothing is counted otherwise. Errors are REST's, with the details renamed to the arguments.
 */
export function toListQuery(
  schema: Schema,
  resource: Resource,
  args: Record<string, unknown>,
  includeTotal: boolean,
  nested = false,
): ListQuery {
  const params = new URLSearchParams()
  if (args.first != null) params.set('limit', String(args.first))
  if (args.after != null) params.set('cursor', String(args.after))
  if (args.sort != null) params.set('sort', String(args.sort))
  for (const { arg, param } of paramsOf(resource, nested)) {
    if (args[arg] != null) params.set(param, text(args[arg]))
  }
  if (includeTotal) params.set('include_total', 'true')
  return withArgumentNames(resource, nested, () => parseListParams(schema, resource, params).query)
}
