import { badRequest, type ErrorDetail } from '../errors.ts'
import type { FilterKind } from '../resources/fields.ts'
import type { Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import { coerceFilterValue, type FilterValue, queryField, snakeName } from './fields.ts'
import { PAGINATION_PARAMS, parsePage, rejectUnknownParams } from './pagination.ts'
import { SHAPE_PARAMS, type ShapeParams, shapeParamsOf } from './shape.ts'
import { type Condition, DEFAULT_SORT, type ListQuery, type SortKey } from './types.ts'

export const MAX_SORT_KEYS = 4
const MAX_SEARCH_LENGTH = 200

/** One query parameter that filters a collection. */
export interface FilterParam {
  name: string
  field: string
  op: 'eq' | 'gte' | 'lte' | 'gt' | 'lt'
}

/**
 * The filter parameters a collection accepts, derived from its declaration: `field=` for
 * equality, `field_gte=`/`field_lte=` for ranges, `created_after`/`created_before` and
 * `updated_after`/`updated_before` for dates.
 */
export function filterParams(resource: Resource): FilterParam[] {
  const params: FilterParam[] = []
  for (const name of resource.filterable)
    params.push(...fieldFilterParams(name, resource.fields[name]!.filter!))
  for (const stamp of ['created', 'updated'] as const) {
    params.push({ name: `${stamp}_after`, field: `${stamp}At`, op: 'gt' })
    params.push({ name: `${stamp}_before`, field: `${stamp}At`, op: 'lt' })
  }
  return params
}

/** The filter parameters of one field with filter `kind` (`pages`, `pages_gte`, `pages_lte`). */
export function fieldFilterParams(name: string, kind: FilterKind): FilterParam[] {
  const snake = snakeName(name)
  return [
    ...(kind !== 'range' ? [{ name: snake, field: name, op: 'eq' as const }] : []),
    ...(kind !== 'eq'
      ? [
          { name: `${snake}_gte`, field: name, op: 'gte' as const },
          { name: `${snake}_lte`, field: name, op: 'lte' as const },
        ]
      : []),
  ]
}

/** The parameters every list takes besides its filters: pages, shape, sort and search. */
export const LIST_PARAMS: readonly string[] = [...PAGINATION_PARAMS, ...SHAPE_PARAMS, 'sort', 'q', 'search']

// By the resource itself, not its name: servers of two schemas in one process (a test's replicas
// of the previous file and of the next) each filter by their own declaration of a collection.
const cache = new WeakMap<Resource, { byName: Map<string, FilterParam>; known: Set<string> }>()

function paramsOf(resource: Resource) {
  let entry = cache.get(resource)
  if (!entry) {
    const byName = new Map(filterParams(resource).map((p) => [p.name, p]))
    const known = new Set<string>([...LIST_PARAMS, ...byName.keys()])
    entry = { byName, known }
    cache.set(resource, entry)
  }
  return entry
}

/**
 * A collection's GET (and so a QUERY form body, its query string) takes no `filter` expression:
 * the answer says where one goes, rather than only that it is unknown (docs/query.md).
 */
const WHERE_FILTER_GOES = new Map([
  [
    'filter',
    'is not a parameter of this endpoint: a filter expression goes in a JSON QUERY body ({"filter": "..."}) or to /search with collection',
  ],
])

/** What sorting and searching need to know of a collection (cross-collection search has its own). */
export type Orderable = Pick<Resource, 'name' | 'fields' | 'sortable' | 'searchable'>

/** Parses `sort=-amount,created_at:asc` against the declared sort fields. */
export function parseSort(resource: Orderable, raw: string | null): SortKey[] {
  if (raw === null) return DEFAULT_SORT
  const fail = (message: string) =>
    badRequest(`The sort parameter is not valid: ${message}.`, [{ field: 'sort', message }])
  const parts = raw.split(',')
  if (parts.length > MAX_SORT_KEYS) throw fail(`at most ${MAX_SORT_KEYS} keys`)
  const keys: SortKey[] = []
  for (const part of parts) {
    const match = /^([+-]?)([A-Za-z_][A-Za-z0-9_]{0,63})(?::(asc|desc))?$/.exec(part.trim())
    if (!match) throw fail(`"${part.slice(0, 80)}" is not field, -field or field:asc|desc`)
    const [, sign, name, direction] = match
    if (sign && direction) throw fail(`"${part}" gives the direction twice`)
    const field = queryField(resource, name!)
    if (!field || !resource.sortable.includes(field.name)) {
      throw fail(`${name} is not sortable (sortable: ${resource.sortable.map(snakeName).join(', ')})`)
    }
    if (keys.some((k) => k.field === field.name)) throw fail(`${name} appears twice`)
    keys.push({ field: field.name, descending: sign === '-' || direction === 'desc' })
  }
  return keys
}

/** Parses `q` (or its alias `search`): free text, matched word by word. */
export function parseSearch(resource: Orderable, params: URLSearchParams): string | undefined {
  const q = params.get('q')
  const search = params.get('search')
  if (q !== null && search !== null) {
    throw badRequest('Use q or search, not both.', [
      { field: 'search', message: 'cannot be combined with q' },
    ])
  }
  const name = q !== null ? 'q' : 'search'
  const text = q ?? search
  if (text === null) return undefined
  const fail = (message: string) =>
    badRequest(`The ${name} parameter is not valid: ${message}.`, [{ field: name, message }])
  if (resource.searchable.length === 0) throw fail(`${resource.name} has no searchable fields`)
  if (text.trim().length === 0) throw fail('must not be empty')
  if (text.length > MAX_SEARCH_LENGTH) throw fail(`must be at most ${MAX_SEARCH_LENGTH} characters`)
  return text
}

export interface ParsedList {
  query: ListQuery
  /** The applied filters, keyed by parameter name, echoed in the response. */
  filters: Record<string, FilterValue | FilterValue[]>
  /** `fields`, `expand` and `expand_limit` as given; they are read against the request's version. */
  shape?: ShapeParams
}

/**
 * Everything a collection GET (or a QUERY body with the same parameters) may carry: pagination,
 * filters, `q`/`search`, `sort`, and what shapes the records (`fields`, `expand`). Unknown and repeated parameters, malformed values and
 * unsortable fields are 400 with a detail naming the parameter.
 */
export function parseListParams(
  schema: Schema,
  resource: Resource,
  params: URLSearchParams,
  extra: Iterable<string> = [],
): ParsedList {
  const { known } = paramsOf(resource)
  const extraNames = [...extra]
  rejectUnknownParams(
    params,
    extraNames.length === 0 ? known : new Set([...known, ...extraNames]),
    WHERE_FILTER_GOES,
  )
  const { where, search, filters } = parseFilters(schema, resource, params)
  const { page, includeTotal } = parsePage(params)
  return {
    query: { where, search, sort: parseSort(resource, params.get('sort')), page, includeTotal },
    filters,
    shape: shapeParamsOf(params),
  }
}

/** The filter parameters of a collection, by name (`status`, `amount_gte`, `created_after`). */
export function filterParamNames(resource: Resource): ReadonlySet<string> {
  return new Set(paramsOf(resource).byName.keys())
}

/**
 * The filters and `q`/`search` of a request, as every read of a collection takes them (a list, its
 * aggregates): the conditions and the applied filters echoed back. Unknown parameters are the
 * caller's to refuse; malformed values are 400 naming the parameter.
 */
export function parseFilters(
  schema: Schema,
  resource: Resource,
  params: URLSearchParams,
): { where: Condition[]; search?: string; filters: ParsedList['filters'] } {
  const { byName } = paramsOf(resource)
  const where: Condition[] = []
  const filters: ParsedList['filters'] = {}
  const details: ErrorDetail[] = []
  for (const [name, raw] of params) {
    const param = byName.get(name)
    if (!param) continue
    const field = queryField(resource, param.field)!
    // Equality on enums and references takes a comma-separated list: status=paid,shipped.
    const many =
      param.op === 'eq' && (field.kind === 'enum' || field.kind === 'reference') && raw.includes(',')
    const values: FilterValue[] = []
    for (const part of many ? raw.split(',') : [raw]) {
      const coerced = coerceFilterValue(schema, field, part)
      if ('error' in coerced) details.push({ field: name, message: coerced.error })
      else values.push(coerced.value)
    }
    if (values.length === 0 || details.length > 0) continue
    if (many && values.length > 100) details.push({ field: name, message: 'at most 100 values' })
    filters[name] = many ? values : values[0]!
    where.push(
      many
        ? { kind: 'compare', field: param.field, op: 'in', value: values as (string | number)[] }
        : { kind: 'compare', field: param.field, op: param.op, value: values[0]! },
    )
  }
  if (details.length > 0) throw badRequest('Some filter values are not valid.', details)
  const search = parseSearch(resource, params)
  if (search !== undefined) filters[params.has('q') ? 'q' : 'search'] = search
  return { where, search, filters }
}
