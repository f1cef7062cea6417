import type { Condition, Page } from './types.ts'

/**
 * The internal aggregate query (contract, "Bulk and summary"): every way of asking for counts and
 * sums per group (`GET /{collection}/aggregates`, QUERY form, JSON and SQL bodies, GraphQL's
 * `{plural}Aggregate`, `api aggregate`) becomes one of these, and it is compiled to SQL in one place.
 */

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max'

/** `count` (of records: no field), `sum(pages)`, `avg(pages)`, `min(createdAt)`, `max(title)`. */
export interface Aggregate {
  fn: AggregateFunction
  /** The declared field (camelCase); absent only for `count`. */
  field?: string
}

/** How a timestamp groups: the UTC day, ISO week (from Monday) or month it falls in. */
export type TimeBucket = 'day' | 'week' | 'month'

/** A group key: a field (declared with `filter` or `sort`), a timestamp by `bucket`. */
export interface GroupKey {
  field: string
  bucket?: TimeBucket
}

/** What groups are ordered by: one of the group keys, or one of the aggregates asked for. */
export type AggregateSortKey =
  | { kind: 'group'; index: number; descending: boolean }
  | { kind: 'aggregate'; aggregate: Aggregate; descending: boolean }

/** A condition on a group's aggregate (SQL bodies' `HAVING`). */
export type HavingCondition =
  | {
      kind: 'compare'
      aggregate: Aggregate
      op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'
      value: number | string
    }
  | { kind: 'and' | 'or'; conditions: HavingCondition[] }
  | { kind: 'not'; condition: HavingCondition }

export interface AggregateQuery {
  /** The list's filters, exactly as a list of the collection takes them. */
  where: Condition[]
  search?: string
  /** Empty: one group of every record the filters keep. */
  groupBy: GroupKey[]
  /** At least one; in the order asked. */
  aggregates: Aggregate[]
  having?: HavingCondition
  /** Ties are broken by the group keys in order, so pages are stable. */
  sort: AggregateSortKey[]
  /** Cursor, page or offset style (keyset names a record, and a group is none). */
  page: Exclude<Page, { style: 'keyset' }>
  includeTotal: boolean
}

/**
 * One group as the store answers it: its key values (`{status: 'paid'}`, a bucketed timestamp as
 * the ISO instant its bucket starts) and each aggregate's value, in the order of `aggregates`.
 */
export interface AggregateRow {
  key: Record<string, unknown>
  values: (number | string | null)[]
}
