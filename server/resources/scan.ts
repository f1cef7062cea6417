import { invalid, unavailable } from '../../shared/errors.ts'
import { stableOrder } from '../../shared/query/stable-order.ts'
import type { Condition, SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { loadParent } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { cursorBinding, type Entity } from './reads.ts'
import { lastVisibleChange, visibilityConditions } from './visibility.ts'

/** Rows fetched from the store per round of a scan. */
const BATCH = 100

interface ScanRequest {
  /** Conditions the store applies; `keep` sees only rows that pass them. */
  where: Condition[]
  sort: SortKey[]
  limit: number
  cursor?: string
  /** The test the store cannot run, applied to each record in memory. */
  keep: (entity: Entity) => boolean
  /** Most records `keep` may look at in one request. */
  budget: number
  /** Clock value after which the scan gives up with 503. */
  deadline: number
  /** Extra text bound into the cursor, so a cursor of another filter does not fit. */
  binding: string
}

interface ScanResult {
  data: Entity[]
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null }
  lastModified: string
}

/**
 * A page of records that pass both the store's conditions and an in-memory test (JSONPath filters
 * that do not translate to SQL). Rows are read in batches in the query's order until the page is
 * full; when that would mean looking at more than `budget` records, the request is refused with
 * 422 instead of answering a page that silently misses records. Cursor style only.
 */
export async function scanRecords(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  request: ScanRequest,
  parent?: ParentRef,
): Promise<ScanResult> {
  requireScope(principal, resource.scopes.read)
  const where = [...request.where]
  if (parent) {
    await loadParent(ctx, principal, resource, parent)
    where.push({ kind: 'compare', field: resource.parent!.field, op: 'eq', value: parent.id })
  }
  const keys = stableOrder(request.sort)
  const sortValues = (entity: Entity) => ctx.store.records.sortValues(resource, entity, keys)
  const binding = `${cursorBinding(principal, resource, where, { where, sort: request.sort, page: { style: 'cursor', limit: request.limit }, includeTotal: false })}.${request.binding}`
  let after = request.cursor ? ctx.cursors.decode(binding, request.cursor, keys.length) : undefined
  const visible = [...where, ...visibilityConditions(ctx.schema, principal, resource, where)]
  const kept: Entity[] = []
  let scanned = 0
  for (;;) {
    if (ctx.clock() > request.deadline) throw overTime()
    const entities = await ctx.store.records.page(resource, principal.orgId, {
      where: visible,
      sort: keys,
      limit: BATCH,
      after,
    })
    for (const entity of entities) {
      scanned += 1
      if (request.keep(entity)) kept.push(entity)
      if (kept.length > request.limit) break
    }
    if (kept.length > request.limit || entities.length < BATCH) break
    if (scanned >= request.budget) throw overBudget(request.budget)
    after = sortValues(entities.at(-1)!)
  }
  const hasMore = kept.length > request.limit
  if (hasMore) kept.pop()
  const last = kept.at(-1)
  return {
    data: kept,
    pagination: {
      limit: request.limit,
      hasMore,
      nextCursor: hasMore && last ? ctx.cursors.encode(binding, sortValues(last)) : null,
    },
    lastModified: (await lastVisibleChange(ctx, principal, resource)) ?? new Date(0).toISOString(),
  }
}

function overBudget(budget: number) {
  return invalid(`Answering this query would evaluate more than ${budget} records in memory.`, [
    {
      field: 'body',
      message: `needs more than ${budget} records evaluated in memory; add a condition that runs in SQL (==, !=, <, <=, >, >= between a field and a literal, with && || !)`,
    },
  ])
}

/** 503: the query ran out of its time budget (docs/query.md); trying again later may succeed. */
export function overTime() {
  return unavailable('The query did not finish within its time budget.', {
    details: [{ field: 'body', message: 'took longer than the time budget of a QUERY' }],
  })
}
