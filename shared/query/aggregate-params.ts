import { badRequest } from '../errors.ts'
import type { Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import type {
  Aggregate,
  AggregateFunction,
  AggregateQuery,
  AggregateSortKey,
  GroupKey,
  TimeBucket,
} from './aggregate-types.ts'
import { type QueryField, queryField, snakeName } from './fields.ts'
import { filterParamNames, MAX_SORT_KEYS, type ParsedList, parseFilters } from './list-params.ts'
import { PAGINATION_PARAMS, parsePage, rejectUnknownParams } from './pagination.ts'

/** Most fields one request groups by. */
export const MAX_GROUP_KEYS = 3
/** Most aggregates one request asks for. */
export const MAX_AGGREGATES = 10
export const TIME_BUCKETS: readonly TimeBucket[] = ['day', 'week', 'month']
export const AGGREGATE_FUNCTIONS: readonly AggregateFunction[] = ['count', 'sum', 'avg', 'min', 'max']

/** The parameters of `/{collection}/aggregates` besides the collection's filters. */
export const AGGREGATE_PARAMS: readonly string[] = [
  ...PAGINATION_PARAMS,
  'group_by',
  'aggregate',
  'sort',
  'q',
  'search',
]

export interface ParsedAggregate {
  query: AggregateQuery
  /** The applied filters, keyed by parameter name, echoed in the response. */
  filters: ParsedList['filters']
}

const NAME = '[A-Za-z_][A-Za-z0-9_]{0,63}'
const GROUP = new RegExp(`^(${NAME})(?::(day|week|month))?$`)
const AGGREGATE = new RegExp(`^(?:(count)|(sum|avg|min|max)\\((${NAME})\\))$`)
const SORT = new RegExp(`^([+-]?)(count|(?:sum|avg|min|max)\\(${NAME}\\)|${NAME})(?::(asc|desc))?$`)

const fail = (param: string, message: string) =>
  badRequest(`The ${param} parameter is not valid: ${message}.`, [{ field: param, message }])

const cut = (text: string) => text.slice(0, 80)

/**
 * The fields a collection's aggregates may group by, as `group_by` names them: every field declared
 * with `filter` or `sort` (a timestamp only by bucket), and `created_at`, `updated_at` and every
 * declared timestamp by `day`, `week` or `month`.
 */
export function groupableKeys(resource: Resource): string[] {
  const keys: string[] = []
  const names = new Set([...resource.filterable, ...resource.sortable])
  for (const [name, field] of Object.entries(resource.fields)) if (field.kind === 'timestamp') names.add(name)
  for (const name of ['createdAt', 'updatedAt', ...names]) {
    const field = queryField(resource, name)
    if (!field || AGGREGATE_FUNCTIONS.includes(name as AggregateFunction)) continue
    if (field.kind === 'timestamp')
      for (const bucket of TIME_BUCKETS) keys.push(`${snakeName(name)}:${bucket}`)
    else keys.push(snakeName(name))
  }
  return [...new Set(keys)]
}

/** Integer fields `sum` and `avg` take (money amounts in minor units among them). */
export function summableFields(resource: Resource): string[] {
  return Object.entries(resource.fields)
    .filter(([, field]) => field.kind === 'integer')
    .map(([name]) => name)
}

/** Sortable fields `min` and `max` take (a boolean has no order every database agrees on). */
export function orderedFields(resource: Resource): string[] {
  return resource.sortable.filter((name) => resource.fields[name]?.kind !== 'boolean')
}

function parseGroupBy(resource: Resource, raw: string | null): GroupKey[] {
  if (raw === null) return []
  const allowed = new Set(groupableKeys(resource))
  const parts = raw.split(',')
  if (parts.length > MAX_GROUP_KEYS) throw fail('group_by', `at most ${MAX_GROUP_KEYS} fields`)
  const keys: GroupKey[] = []
  for (const part of parts) {
    const match = GROUP.exec(part)
    if (!match) throw fail('group_by', `"${cut(part)}" is not field or timestamp:day|week|month`)
    const [, name, bucket] = match
    const field = queryField(resource, name!)
    if (field && field.kind !== 'timestamp' && bucket !== undefined)
      throw fail('group_by', `only a timestamp groups by ${bucket}, and ${name} is none`)
    const spelled =
      field && (field.kind === 'timestamp' ? `${snakeName(field.name)}:${bucket}` : snakeName(field.name))
    if (!field || !allowed.has(spelled!)) {
      if (field?.kind === 'timestamp' && bucket === undefined && allowed.has(`${snakeName(field.name)}:day`))
        throw fail(
          'group_by',
          `${name} is a timestamp: group it by ${name}:day, ${name}:week or ${name}:month`,
        )
      throw fail('group_by', `${cut(name!)} cannot be grouped by (groupable: ${[...allowed].join(', ')})`)
    }
    if (keys.some((k) => k.field === field.name)) throw fail('group_by', `${name} appears twice`)
    keys.push(bucket ? { field: field.name, bucket: bucket as TimeBucket } : { field: field.name })
  }
  return keys
}

function checkAggregateField(resource: Resource, fn: AggregateFunction, name: string): QueryField {
  const field = queryField(resource, name)
  const allowed = fn === 'sum' || fn === 'avg' ? summableFields(resource) : orderedFields(resource)
  if (!field || !allowed.includes(field.name)) {
    const what = fn === 'sum' || fn === 'avg' ? 'an integer field' : 'a sortable field'
    const list = allowed.length > 0 ? allowed.map(snakeName).join(', ') : 'none'
    throw fail('aggregate', `${fn} takes ${what} of ${resource.name}, and ${cut(name)} is none (${list})`)
  }
  return field
}

/** Parses `count,sum(amount),avg(amount)`; `count` alone when absent. */
function parseAggregates(resource: Resource, raw: string | null): Aggregate[] {
  if (raw === null) return [{ fn: 'count' }]
  const parts = raw.split(',')
  if (parts.length > MAX_AGGREGATES) throw fail('aggregate', `at most ${MAX_AGGREGATES} aggregates`)
  const aggregates: Aggregate[] = []
  for (const part of parts) {
    const match = AGGREGATE.exec(part)
    if (!match) throw fail('aggregate', `"${cut(part)}" is not count, sum(f), avg(f), min(f) or max(f)`)
    const fn = (match[1] ?? match[2]) as AggregateFunction
    const aggregate: Aggregate =
      fn === 'count' ? { fn } : { fn, field: checkAggregateField(resource, fn, match[3]!).name }
    if (aggregates.some((a) => sameAggregate(a, aggregate))) throw fail('aggregate', `${part} appears twice`)
    aggregates.push(aggregate)
  }
  return aggregates
}

/** Whether two aggregates are the same function of the same field. */
export const sameAggregate = (a: Aggregate, b: Aggregate) => a.fn === b.fn && a.field === b.field

/** `count`, `sum(amount)`: how a parameter names an aggregate. */
const aggregateName = (a: Aggregate) => (a.field ? `${a.fn}(${snakeName(a.field)})` : a.fn)

function parseAggregateSort(
  resource: Resource,
  raw: string | null,
  groupBy: GroupKey[],
  aggregates: Aggregate[],
): AggregateSortKey[] {
  if (raw === null) return groupBy.map((_, index) => ({ kind: 'group', index, descending: false }))
  const parts = raw.split(',')
  if (parts.length > MAX_SORT_KEYS) throw fail('sort', `at most ${MAX_SORT_KEYS} keys`)
  const keys: AggregateSortKey[] = []
  const names = [...groupBy.map((k) => snakeName(k.field)), ...aggregates.map(aggregateName)]
  for (const part of parts) {
    const match = SORT.exec(part)
    if (!match) throw fail('sort', `"${cut(part)}" is not key, -key or key:asc|desc`)
    const [, sign, name, direction] = match
    if (sign && direction) throw fail('sort', `"${cut(part)}" gives the direction twice`)
    const descending = sign === '-' || direction === 'desc'
    const key = sortKeyOf(resource, name!, descending, groupBy, aggregates)
    if (!key)
      throw fail(
        'sort',
        `${cut(name!)} is neither a group key nor an aggregate asked for (${names.join(', ')})`,
      )
    const same = (k: AggregateSortKey) =>
      k.kind === 'group' && key.kind === 'group'
        ? k.index === key.index
        : k.kind === 'aggregate' && key.kind === 'aggregate' && sameAggregate(k.aggregate, key.aggregate)
    if (keys.some(same)) throw fail('sort', `${name} appears twice`)
    keys.push(key)
  }
  return keys
}

function sortKeyOf(
  resource: Resource,
  name: string,
  descending: boolean,
  groupBy: GroupKey[],
  aggregates: Aggregate[],
): AggregateSortKey | undefined {
  const call = /^(count|sum|avg|min|max)(?:\((.+)\))?$/.exec(name)
  if (call) {
    const field = call[2] === undefined ? undefined : queryField(resource, call[2])?.name
    const asked = aggregates.find((a) => a.fn === call[1] && a.field === field)
    // No field named like a function is grouped by (groupableKeys), so this names no group key.
    return asked && { kind: 'aggregate', aggregate: asked, descending }
  }
  const field = queryField(resource, name)
  const index = field ? groupBy.findIndex((k) => k.field === field.name) : -1
  return index === -1 ? undefined : { kind: 'group', index, descending }
}

/**
 * Everything `GET /{collection}/aggregates` (or a QUERY form or JSON body sent to it) may carry:
 * the list's filters and `q`, `group_by`, `aggregate`, `sort` and pagination (not `after`: a group
 * is not a record). Every mistake is 400 with a detail naming the parameter (docs/bulk.md).
 */
export function parseAggregateParams(
  schema: Schema,
  resource: Resource,
  params: URLSearchParams,
): ParsedAggregate {
  rejectUnknownParams(params, new Set([...AGGREGATE_PARAMS, ...filterParamNames(resource)]))
  if (params.has('after')) throw fail('after', 'a group is not a record: page with cursor, page or offset')
  const { where, search, filters } = parseFilters(schema, resource, params)
  const groupBy = parseGroupBy(resource, params.get('group_by'))
  const aggregates = parseAggregates(resource, params.get('aggregate'))
  const sort = parseAggregateSort(resource, params.get('sort'), groupBy, aggregates)
  const { page, includeTotal } = parsePage(params)
  if (page.style === 'keyset') throw new Error('after is refused above')
  return { query: { where, search, groupBy, aggregates, sort, page, includeTotal }, filters }
}
