import { sameAggregate } from '../../shared/query/aggregate-params.ts'
import type {
  Aggregate,
  AggregateQuery,
  AggregateRow,
  AggregateSortKey,
} from '../../shared/query/aggregate-types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import type { SortValue } from '../store/types.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { type ListAnswer, pageBody } from './list-page.ts'
import type { Presentation } from './presentation.ts'
import { type Pagination, paginationOf, scopedConditions } from './reads.ts'
import { lastVisibleChange } from './visibility.ts'

/** What to aggregate: the collection, the query, and the nested path it came through. */
interface AggregateRequest {
  resource: Resource
  query: AggregateQuery
  parent?: ParentRef
}

/** Groups, their page and when what they count last changed (for Last-Modified). */
interface AggregateResult {
  groups: AggregateRow[]
  pagination: Pagination
  lastModified: string
}

const EPOCH = new Date(0).toISOString()

/** The asked order, then every group key it leaves out, ascending: each group has one place. */
function stableGroupOrder(query: AggregateQuery): AggregateSortKey[] {
  const order = [...query.sort]
  query.groupBy.forEach((_, index) => {
    if (!order.some((k) => k.kind === 'group' && k.index === index))
      order.push({ kind: 'group', index, descending: false })
  })
  return order
}

/** A group's values for the order, as cursors carry them (a boolean as 0 or 1). */
function sortValuesOf(
  query: AggregateQuery,
  computed: Aggregate[],
  order: AggregateSortKey[],
  row: AggregateRow,
): SortValue[] {
  return order.map((key) => {
    const value =
      key.kind === 'group'
        ? row.key[query.groupBy[key.index]!.field]
        : row.values[computed.findIndex((a) => sameAggregate(a, key.aggregate))]
    if (typeof value === 'boolean') return value ? 1 : 0
    return (value ?? null) as SortValue
  })
}

/**
 * Counts and sums per group of what the principal may list of a collection (contract, "Bulk and
 * summary"): the read scope, the nested path's parent checked and its condition added, and the
 * visibility conditions applied exactly as `listRecords` applies them, so an aggregate never counts
 * a record its caller could not list. Paged in cursor, page or offset style; cursors are bound to
 * the organization and the whole query.
 */
export async function aggregateGroups(
  engine: EngineContext,
  principal: Principal,
  { resource, query, parent }: AggregateRequest,
): Promise<AggregateResult> {
  requireScope(principal, resource.scopes.read)
  const { where, visible } = await scopedConditions(engine, principal, resource, query.where, parent)
  const order = stableGroupOrder(query)
  // An order by an aggregate not shown (a SQL body's) is computed too, and left out of the answer.
  const computed = [...query.aggregates]
  for (const key of order)
    if (key.kind === 'aggregate' && !computed.some((a) => sameAggregate(a, key.aggregate)))
      computed.push(key.aggregate)
  const page = query.page
  const binding = JSON.stringify([
    principal.orgId,
    resource.name,
    'aggregates',
    where,
    query.search ?? null,
    query.groupBy,
    computed,
    query.having ?? null,
    order,
  ])
  const after =
    page.style === 'cursor' && page.cursor
      ? engine.cursors.decode(binding, page.cursor, order.length)
      : undefined
  const answer = await engine.store.records.aggregate(resource, principal.orgId, {
    where: visible,
    search: query.search,
    groupBy: query.groupBy,
    aggregates: computed,
    having: query.having,
    sort: order,
    limit: page.limit + 1,
    offset: page.style === 'page' ? (page.page - 1) * page.limit : page.style === 'offset' ? page.offset : 0,
    after,
    includeTotal: query.includeTotal,
  })
  const rows = answer.rows
  const hasMore = rows.length > page.limit
  if (hasMore) rows.pop()
  const last = rows.at(-1)
  const nextCursor = () =>
    last ? engine.cursors.encode(binding, sortValuesOf(query, computed, order, last)) : null
  const shown = computed.length === query.aggregates.length
  return {
    groups: shown
      ? rows
      : rows.map((row) => ({ key: row.key, values: row.values.slice(0, query.aggregates.length) })),
    pagination: paginationOf(page, hasMore, nextCursor, query.includeTotal ? answer.total : undefined),
    lastModified: (await lastVisibleChange(engine, principal, resource)) ?? EPOCH,
  }
}

/** What `aggregatePage` shows: the aggregate request, and the page's link and echoed filters. */
interface AggregatePageRequest extends AggregateRequest {
  /**
   * The front door's version. Group keys and aggregates are shown as stored, in every version: an
   * aggregate of a money amount is its minor units (docs/bulk.md), since a sum spans currencies.
   */
  presentation: Presentation
  /** The request `pagination.next` continues. */
  link: URL
  filters?: Record<string, unknown>
}

/**
 * One item per group: its keys, then `count` and an object per function (`sum: {amount: 50400}`),
 * in the envelope of every list (`data`, `pagination` with `next`, `filters` when given).
 */
function aggregateItem(query: AggregateQuery, row: AggregateRow): Record<string, unknown> {
  const item: Record<string, unknown> = { ...row.key }
  query.aggregates.forEach((aggregate, i) => {
    const value = row.values[i] ?? null
    if (aggregate.fn === 'count') item.count = value
    else {
      const byField = (item[aggregate.fn] ?? {}) as Record<string, unknown>
      byField[aggregate.field!] = value
      item[aggregate.fn] = byField
    }
  })
  return item
}

/**
 * The CSV columns of an aggregate's items, from the query (never the data, so an empty page has
 * its header): the group keys, then `count` and each function's field (`sum.amount`).
 */
export function aggregateColumns(query: AggregateQuery): string[] {
  const columns = query.groupBy.map((key) => key.field)
  for (const { fn, field } of query.aggregates) columns.push(fn === 'count' ? 'count' : `${fn}.${field}`)
  return columns
}

/** The REST body of a collection's aggregates: `aggregateGroups` in the envelope of a list. */
export async function aggregatePage(
  engine: EngineContext,
  principal: Principal,
  request: AggregatePageRequest,
): Promise<ListAnswer> {
  const result = await aggregateGroups(engine, principal, request)
  const data = result.groups.map((row) => aggregateItem(request.query, row))
  const filters = request.filters && Object.keys(request.filters).length > 0 ? request.filters : undefined
  return { body: pageBody(data, result.pagination, request.link, filters), lastModified: result.lastModified }
}
