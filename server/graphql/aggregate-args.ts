import {
  MAX_GROUP_KEYS,
  orderedFields,
  sameAggregate,
  summableFields,
} from '../../shared/query/aggregate-params.ts'
import type {
  Aggregate,
  AggregateFunction,
  AggregateSortKey,
  GroupKey,
} from '../../shared/query/aggregate-types.ts'
import { MAX_SORT_KEYS } from '../../shared/query/list-params.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { groupByName } from './aggregate-types.ts'
import { badUserInput } from './errors.ts'

/**
 * The arguments of `{plural}Aggregate` beyond the list's filters: `groupBy` (checked here for what
 * its enum cannot say) and `sort`, a comma list as REST writes it, in GraphQL's names: a key as
 * `groupBy` names it (`status`, `createdAt_day`) or by its field (`createdAt`), or an aggregate
 * (`count`, `sum(pages)`), each with `-` or `:desc` for descending.
 */

const MAX_SORT_LENGTH = 400
const AGGREGATE = /^(count|sum|avg|min|max)(?:\(([A-Za-z][A-Za-z0-9]*)\))?$/

/** The group keys asked for: at most MAX_GROUP_KEYS, each field once. */
export function checkGroupBy(keys: readonly GroupKey[]): GroupKey[] {
  if (keys.length > MAX_GROUP_KEYS)
    throw badUserInput(`groupBy takes at most ${MAX_GROUP_KEYS} keys.`, [
      { field: 'groupBy', message: `at most ${MAX_GROUP_KEYS} keys` },
    ])
  keys.forEach((key, i) => {
    // A group shows each key under its field's name, so one field groups one way.
    if (keys.findIndex((k) => k.field === key.field) !== i)
      throw badUserInput(`groupBy names ${key.field} twice.`, [
        { field: 'groupBy', message: `${groupByName(key)}: ${key.field} is already a key` },
      ])
  })
  return [...keys]
}

/** Whether `fn` may take `field`: sum and avg integers, min and max sortable fields (as REST). */
function takesField(resource: Resource, fn: AggregateFunction, field: string): boolean {
  return (fn === 'sum' || fn === 'avg' ? summableFields(resource) : orderedFields(resource)).includes(field)
}

const failSort = (message: string) =>
  badUserInput(`The sort argument is not valid: ${message}.`, [{ field: 'sort', message }])

/** One key of `sort`: a group key (by its groupBy name or its field's) or an aggregate. */
function sortKeyOf(
  resource: Resource,
  groupBy: readonly GroupKey[],
  name: string,
  descending: boolean,
  shown: string,
): AggregateSortKey {
  const index = groupBy.findIndex((k) => groupByName(k) === name || k.field === name)
  if (index >= 0) return { kind: 'group', index, descending }
  const match = AGGREGATE.exec(name)
  if (!match)
    throw failSort(
      `${shown} is neither a groupBy key (${groupBy.map(groupByName).join(', ') || 'none'}) nor an aggregate (count, sum(field), avg(field), min(field), max(field))`,
    )
  const fn = match[1] as AggregateFunction
  const field = match[2]
  if (fn === 'count' ? field !== undefined : field === undefined || !takesField(resource, fn, field))
    throw failSort(
      fn === 'count'
        ? 'count takes no field'
        : `${shown}: ${fn} takes ${fn === 'sum' || fn === 'avg' ? 'an integer' : 'a sortable'} field of ${resource.name}`,
    )
  const aggregate: Aggregate = field === undefined ? { fn } : { fn, field }
  return { kind: 'aggregate', aggregate, descending }
}

/**
 * Parses `sort` (`-count,status`, `sum(pages):desc`) against the group keys; BAD_USER_INPUT naming
 * `sort` otherwise.
 */
export function parseAggregateSort(
  resource: Resource,
  groupBy: readonly GroupKey[],
  raw: string | null | undefined,
): AggregateSortKey[] {
  if (raw == null) return []
  if (raw.length > MAX_SORT_LENGTH) throw failSort(`longer than ${MAX_SORT_LENGTH} characters`)
  const parts = raw.split(',').map((p) => p.trim())
  if (parts.length > MAX_SORT_KEYS) throw failSort(`at most ${MAX_SORT_KEYS} keys`)
  const keys: AggregateSortKey[] = []
  for (const part of parts) {
    const suffix = /:(asc|desc)$/i.exec(part)
    const sign = part.startsWith('-')
    const shown = JSON.stringify(part.slice(0, 64))
    if (sign && suffix) throw failSort(`${shown} gives the direction twice`)
    const descending = sign || (suffix !== null && suffix[1]!.toLowerCase() === 'desc')
    const name = part.slice(sign ? 1 : 0, suffix ? -suffix[0].length : undefined)
    const key = sortKeyOf(resource, groupBy, name, descending, shown)
    const same = (k: AggregateSortKey) =>
      k.kind === 'group'
        ? key.kind === 'group' && k.index === key.index
        : key.kind === 'aggregate' && sameAggregate(k.aggregate, key.aggregate)
    if (keys.some(same)) throw failSort(`${shown} is named twice`)
    keys.push(key)
  }
  return keys
}
