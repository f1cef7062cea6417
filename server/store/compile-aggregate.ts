import type { Aggregate, AggregateRow, HavingCondition } from '../../shared/query/aggregate-types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { fromColumn } from './columns.ts'
import { columnFor, keysetAfter, type OrderedColumn, whereClause } from './compile.ts'
import { type Dialect, Params, type SqlParam, type SqlValue } from './dialect.ts'
import type { AggregateRequest } from './types.ts'

/**
 * SQL for counts and sums per group (the internal aggregate query), for every backend: one
 * statement, the list's own WHERE (so the list's indexes serve it), the groups as a subquery that
 * the page's order, keyset and limit apply to, and the number of groups, when asked, as a window
 * over them. What differs by backend (time buckets) is the dialect's.
 */

const OPERATORS = { eq: '=', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const

/** The SQL of one aggregate over the rows of a group. */
function aggregateSql(resource: Resource, aggregate: Aggregate): string {
  if (aggregate.fn === 'count') return 'count(*)'
  if (aggregate.field === undefined) throw new Error(`${aggregate.fn} needs a field`)
  const column = columnFor(resource, aggregate.field)
  switch (aggregate.fn) {
    // The sum of no values is 0, as their count is; SQL's would be null.
    case 'sum':
      return `coalesce(sum(${column}), 0)`
    // A double divided by a count: the same number on every backend (PostgreSQL's avg is a numeric).
    case 'avg':
      return `CAST(sum(${column}) AS DOUBLE PRECISION) / NULLIF(count(${column}), 0)`
    default:
      return `${aggregate.fn}(${column})`
  }
}

const isField = (resource: Resource, name: string | undefined) =>
  name !== undefined && Object.hasOwn(resource.fields, name)

/** Compiles HAVING (SQL bodies'): conditions on the aggregates of each group. */
function havingSql(resource: Resource, condition: HavingCondition, params: Params): string {
  switch (condition.kind) {
    case 'and':
    case 'or': {
      if (condition.conditions.length === 0)
        return condition.kind === 'and' ? params.dialect.always : params.dialect.never
      const parts = condition.conditions.map((c) => havingSql(resource, c, params))
      return `(${parts.join(condition.kind === 'and' ? ' AND ' : ' OR ')})`
    }
    case 'not':
      return `(NOT ${havingSql(resource, condition.condition, params)})`
    case 'compare':
      return `${aggregateSql(resource, condition.aggregate)} ${OPERATORS[condition.op]} ${params.add(condition.value)}`
  }
}

/** A compiled aggregate request: the text, its values, and how to read its rows. */
export interface CompiledAggregate {
  text: string
  values: SqlParam[]
  /** The statement that counts every group, for a page past the last that asked for a total. */
  countText: string
  countValues: SqlParam[]
  read(row: Record<string, unknown>): AggregateRow
  /** The total the window counted, from any row of the answer. */
  totalOf(row: Record<string, unknown>): number
}

const sameAggregate = (a: Aggregate, b: Aggregate) => a.fn === b.fn && a.field === b.field

/** Compiles `request` on the records of `orgId` in `resource` for `dialect`. */
export function compileAggregate(
  resource: Resource,
  orgId: string,
  request: AggregateRequest,
  dialect: Dialect,
): CompiledAggregate {
  const params = new Params(dialect)
  const keys = request.groupBy.map((key, i) => {
    const column = columnFor(resource, key.field)
    return `${key.bucket ? dialect.timeBucket(column, key.bucket) : column} AS g${i}`
  })
  // What is ordered by an aggregate not asked for (a SQL body's ORDER BY) is selected too.
  const computed = [...request.aggregates]
  for (const key of request.sort)
    if (key.kind === 'aggregate' && !computed.some((a) => sameAggregate(a, key.aggregate)))
      computed.push(key.aggregate)
  const selected = [...keys, ...computed.map((a, i) => `${aggregateSql(resource, a)} AS a${i}`)]
  const where = whereClause(resource, orgId, request.where, request.search, params)
  let groups = `FROM ${resource.table} WHERE ${where}`
  // Grouped by position: the key's expression is written once.
  if (keys.length > 0) groups += ` GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`
  if (request.having) groups += ` HAVING ${havingSql(resource, request.having, params)}`
  const groupValues = [...params.values]
  const countText = `SELECT count(*) AS n FROM (SELECT ${selected.join(', ')} ${groups}) AS groups`
  // Window functions run after GROUP BY and HAVING: over the groups, not the rows.
  const total = request.includeTotal ? ', count(*) OVER () AS total_groups' : ''
  let text = `SELECT * FROM (SELECT ${selected.join(', ')}${total} ${groups}) AS groups`

  const order: OrderedColumn[] = request.sort.map((key) => {
    if (key.kind === 'group') {
      const field = request.groupBy[key.index]!.field
      const nullable = isField(resource, field) && resource.fields[field]!.nullable
      return { column: `g${key.index}`, descending: key.descending, nullable }
    }
    const index = computed.findIndex((a) => sameAggregate(a, key.aggregate))
    // Only a count is never null (a sum is 0 at least; avg, min and max of no value are null).
    return {
      column: `a${index}`,
      descending: key.descending,
      nullable: key.aggregate.fn !== 'count' && key.aggregate.fn !== 'sum',
    }
  })
  if (request.after && order.length > 0) {
    const after = request.after
    const bind = (i: number) => params.add(boundSortValue(resource, request, i, after[i]!, dialect))
    text += ` WHERE ${keysetAfter(order, after, bind, dialect)}`
  }
  if (order.length > 0) {
    const nulls = (k: OrderedColumn) => (k.nullable ? (k.descending ? ' NULLS FIRST' : ' NULLS LAST') : '')
    text += ` ORDER BY ${order.map((k) => `${k.column} ${k.descending ? 'DESC' : 'ASC'}${nulls(k)}`).join(', ')}`
  }
  text += ` LIMIT ${params.add(request.limit)}`
  if (request.offset) text += ` OFFSET ${params.add(request.offset)}`
  return {
    text,
    values: params.values,
    countText,
    countValues: groupValues,
    read: (row) => readRow(resource, request, row),
    totalOf: (row) => Number(row.total_groups),
  }
}

/** A cursor's value (a boolean as 0 or 1) as the key's column holds it in this dialect. */
function boundSortValue(
  resource: Resource,
  request: AggregateRequest,
  i: number,
  value: SqlValue,
  dialect: Dialect,
): SqlParam {
  const key = request.sort[i]!
  if (key.kind !== 'group' || value === null || !dialect.nativeBooleans) return value
  const field = request.groupBy[key.index]!.field
  return isField(resource, field) && resource.fields[field]!.kind === 'boolean' ? value === 1 : value
}

function readRow(resource: Resource, request: AggregateRequest, row: Record<string, unknown>): AggregateRow {
  const key: Record<string, unknown> = {}
  request.groupBy.forEach((group, i) => {
    const raw = row[`g${i}`]
    key[group.field] =
      isField(resource, group.field) && !group.bucket
        ? fromColumn(resource.fields[group.field]!, raw)
        : (raw ?? null)
  })
  const values = request.aggregates.map((aggregate, i) => {
    const raw = row[`a${i}`]
    if (raw === null || raw === undefined) return null
    // PostgreSQL's bigint and numeric arrive as text.
    if (aggregate.fn === 'count' || aggregate.fn === 'sum' || aggregate.fn === 'avg') return Number(raw)
    return isField(resource, aggregate.field)
      ? (fromColumn(resource.fields[aggregate.field!]!, raw) as number | string)
      : (raw as string)
  })
  return { key, values }
}
