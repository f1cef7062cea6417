import {
  groupableKeys,
  MAX_GROUP_KEYS,
  sameAggregate,
  TIME_BUCKETS,
} from '../../shared/query/aggregate-params.ts'
import type {
  Aggregate,
  AggregateQuery,
  AggregateSortKey,
  GroupKey,
} from '../../shared/query/aggregate-types.ts'
import { camelCase, type QueryField, snakeName } from '../../shared/query/fields.ts'
import { MAX_SORT_KEYS } from '../../shared/query/list-params.ts'
import type { Condition } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { aggregateText, functionArgs, functionName, HavingTranslator, readAggregate } from './sql-having.ts'
import { describe, isNode, readLimit, type SqlNode, sortSpecification, sqlProblem } from './sql-nodes.ts'

/**
 * `SELECT key, ..., count(*), sum(f), ... FROM c [WHERE ...] [GROUP BY key, ...] [HAVING ...]
 * [ORDER BY ...] [LIMIT n [OFFSET m]]`, read into the internal aggregate query (docs/query.md,
 * docs/bulk.md). A key is a column declared with a filter or sort, or a timestamp truncated to
 * its UTC day, week or month with `date_trunc('day', created_at)`.
 */

type Column = (node: SqlNode, allowed: string[], use: string) => { field: QueryField; written: string }

/** True when the select list calls one of the aggregate functions (or GROUP BY is present). */
export function isAggregateSelect(clauses: Map<string, SqlNode>): boolean {
  if (clauses.has('group_by_clause') || clauses.has('having_clause')) return true
  return selectItems(clauses.get('select_clause')!).some(
    (item) =>
      isNode(item) &&
      (item.type === 'func_call' ||
        (item.type === 'alias' && isNode(item.expr) && item.expr.type === 'func_call')),
  )
}

function selectItems(clause: SqlNode): unknown[] {
  return isNode(clause.columns) && Array.isArray(clause.columns.items) ? clause.columns.items : []
}

const sameKey = (a: GroupKey, b: GroupKey) => a.field === b.field && a.bucket === b.bucket
const keyText = (k: GroupKey) =>
  k.bucket ? `date_trunc('${k.bucket}', ${snakeName(k.field)})` : snakeName(k.field)

export class AggregateReader {
  /** Fields grouped by as they are, and timestamps grouped by date_trunc (groupableKeys). */
  private readonly groupable: string[]
  private readonly timestamps: string[]

  constructor(
    private readonly schema: Schema,
    private readonly resource: Resource,
    private readonly column: Column,
  ) {
    const keys = groupableKeys(resource)
    const fieldOf = (key: string) => camelCase(key.split(':')[0]!)
    this.groupable = [...new Set(keys.map(fieldOf))]
    this.timestamps = [...new Set(keys.filter((k) => k.includes(':')).map(fieldOf))]
  }

  read(clauses: Map<string, SqlNode>, where: Condition[]): AggregateQuery {
    const groupBy = this.groupBy(clauses.get('group_by_clause'))
    const aggregates = this.selectList(clauses.get('select_clause')!, groupBy)
    const havingClause = clauses.get('having_clause')
    let having: AggregateQuery['having']
    if (havingClause) {
      const translator = new HavingTranslator(this.schema, this.resource, this.column)
      having = translator.condition(havingClause.expr)
    }
    return {
      where,
      groupBy,
      aggregates,
      ...(having ? { having } : {}),
      sort: this.orderBy(clauses.get('order_by_clause'), groupBy),
      page: readLimit(clauses.get('limit_clause')),
      includeTotal: false,
    }
  }

  private groupBy(clause?: SqlNode): GroupKey[] {
    if (!clause) return []
    const items = isNode(clause.columns) && Array.isArray(clause.columns.items) ? clause.columns.items : []
    if (items.length > MAX_GROUP_KEYS)
      throw sqlProblem(`GROUP BY takes at most ${MAX_GROUP_KEYS} keys`, clause)
    const keys: GroupKey[] = []
    for (const item of items) {
      const key = this.key(item, 'GROUP BY')
      // A group shows its keys by field name, so one field groups one way.
      if (keys.some((k) => k.field === key.field))
        throw sqlProblem(`GROUP BY names ${snakeName(key.field)} twice`, item)
      keys.push(key)
    }
    return keys
  }

  /** A group key as written in GROUP BY, the select list or ORDER BY. */
  private key(node: unknown, where: string): GroupKey {
    if (isNode(node) && node.type === 'func_call' && functionName(node) === 'date_trunc') {
      const [unit, column] = functionArgs(node, 'date_trunc')
      const bucket = TIME_BUCKETS.find(
        (b) => isNode(unit) && unit.type === 'string_literal' && unit.value === b,
      )
      if (!bucket || !isNode(column) || (column.type !== 'identifier' && column.type !== 'member_expr'))
        throw sqlProblem(`date_trunc takes 'day', 'week' or 'month' and a timestamp column`, node)
      const { field } = this.column(
        column,
        this.timestamps,
        'truncated (date_trunc takes a timestamp column)',
      )
      return { field: field.name, bucket }
    }
    if (!isNode(node) || (node.type !== 'identifier' && node.type !== 'member_expr'))
      throw sqlProblem(
        `${describe(node)} is not allowed in ${where}: a key is a column or date_trunc('day', column)`,
        node,
      )
    const { field, written } = this.column(node, this.groupable, 'grouped by')
    if (field.kind === 'timestamp')
      throw sqlProblem(
        `${written} is a timestamp: group it by day, week or month with date_trunc('day', ${written})`,
        node,
      )
    return { field: field.name }
  }

  private selectList(clause: SqlNode, groupBy: GroupKey[]): Aggregate[] {
    if (Array.isArray(clause.modifiers) && clause.modifiers.length > 0)
      throw sqlProblem('DISTINCT is not allowed', clause.modifiers[0])
    const aggregates: Aggregate[] = []
    for (const item of selectItems(clause)) {
      if (isNode(item) && item.type === 'alias')
        throw sqlProblem(
          'aliases are not allowed: each group answers its keys by field name and its aggregates as count, sum.field, avg.field, min.field, max.field',
          item,
        )
      if (isNode(item) && item.type === 'all_columns')
        throw sqlProblem(
          '* cannot be selected with GROUP BY or an aggregate; name the keys and aggregates',
          item,
        )
      const aggregate = readAggregate(this.resource, this.column, item)
      if (aggregate) {
        if (aggregates.some((a) => sameAggregate(a, aggregate)))
          throw sqlProblem(`${aggregateText(aggregate)} is listed twice`, item)
        aggregates.push(aggregate)
        continue
      }
      if (isNode(item) && item.type === 'func_call' && functionName(item) !== 'date_trunc')
        throw sqlProblem(
          `the function ${functionName(item).slice(0, 64) || '?'} is not allowed (allowed: count, sum, avg, min, max, date_trunc)`,
          item,
        )
      const key = this.key(item, 'the select list')
      if (!groupBy.some((k) => sameKey(k, key)))
        throw sqlProblem(
          `${keyText(key)} is selected but not in GROUP BY (a column is a key or inside an aggregate)`,
          item,
        )
    }
    if (aggregates.length === 0)
      throw sqlProblem(
        'select at least one of count(*), sum(column), avg(column), min(column), max(column)',
        clause,
      )
    return aggregates
  }

  private orderBy(clause: SqlNode | undefined, groupBy: GroupKey[]): AggregateSortKey[] {
    if (!clause) return []
    const items =
      isNode(clause.specifications) && Array.isArray(clause.specifications.items)
        ? clause.specifications.items
        : []
    if (items.length > MAX_SORT_KEYS) throw sqlProblem(`ORDER BY takes at most ${MAX_SORT_KEYS} keys`, clause)
    const keys: AggregateSortKey[] = []
    for (const entry of items) {
      const item = sortSpecification(entry, 'keys or aggregates')
      const descending = isNode(item.direction) && item.direction.type === 'sort_direction_desc'
      const aggregate = readAggregate(this.resource, this.column, item.expr)
      let sortKey: AggregateSortKey
      if (aggregate) sortKey = { kind: 'aggregate', aggregate, descending }
      else {
        const key = this.key(item.expr, 'ORDER BY')
        const index = groupBy.findIndex((k) => sameKey(k, key))
        if (index < 0)
          throw sqlProblem(
            `ORDER BY ${keyText(key)}: only GROUP BY keys and aggregates order groups`,
            item.expr,
          )
        sortKey = { kind: 'group', index, descending }
      }
      if (keys.some((k) => JSON.stringify({ ...k, descending }) === JSON.stringify(sortKey)))
        throw sqlProblem('ORDER BY names a key twice', item)
      keys.push(sortKey)
    }
    return keys
  }
}
