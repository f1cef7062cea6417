import { stableOrder } from '../../shared/query/stable-order.ts'
import type { Condition, ListQuery, SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { cursorBinding, type Entity, listRecords } from './reads.ts'
import { type SearchHit, searchAll } from './search.ts'
import { isVisible, visibilityConditions } from './visibility.ts'

/**
 * Reads for front doors that walk relations (GraphQL): a page that can hand out a cursor for every
 * record, and batched loads of related records for many parents at once. Same scopes, organization
 * scoping and cursors as `listRecords`: a cursor made here continues the same list there.
 */

export interface RecordPage {
  data: Entity[]
  hasMore: boolean
  /** Matching records in all pages, when the query asked for it (`includeTotal`). */
  total: number | null
  /** The cursor of the page that starts right after `entity` (what `nextCursor` is for the last one). */
  cursorOf: (entity: Entity) => string
}

function parentCondition(child: Resource, parentId: string): Condition {
  return { kind: 'compare', field: child.parent!.field, op: 'eq', value: parentId }
}

function cursorMaker(ctx: EngineContext, resource: Resource, sort: SortKey[], binding: string) {
  const keys = stableOrder(sort)
  return (entity: Entity) => ctx.cursors.encode(binding, ctx.store.records.sortValues(resource, entity, keys))
}

/** `listRecords` (cursor style) with a cursor for each record. */
export async function listPage(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  query: ListQuery,
  parent?: ParentRef,
): Promise<RecordPage> {
  const result = await listRecords(ctx, principal, resource, query, parent)
  // The same binding listRecords signs its cursors with: the parent is the last condition.
  const where = parent ? [...query.where, parentCondition(resource, parent.id)] : query.where
  return {
    data: result.data,
    hasMore: result.pagination.hasMore,
    total: result.pagination.total ?? null,
    cursorOf: cursorMaker(ctx, resource, query.sort, cursorBinding(principal, resource, where, query)),
  }
}

/**
 * `searchAll` (cursor style) with a cursor for each hit: the full-text search of /search, as a page
 * of records of several collections (each record's id prefix names its collection).
 */
export async function searchPage(
  ctx: EngineContext,
  principal: Principal,
  query: ListQuery,
): Promise<RecordPage> {
  const { search, sort, page, includeTotal } = query
  if (search === undefined) throw new Error('a search across collections needs its text')
  const result = await searchAll(ctx, principal, search, { sort, page, includeTotal })
  const hits = new Map<Entity, SearchHit>(result.data.map((hit) => [hit.record, hit]))
  return {
    data: [...hits.keys()],
    hasMore: result.pagination.hasMore,
    total: result.pagination.total ?? null,
    cursorOf: (entity) => result.cursorOf(hits.get(entity)!),
  }
}

/**
 * The organization's records of `resource` among `ids` that the principal may see, by id (one
 * statement for all of them); the others are left out, as missing ones are.
 */
export async function getRecords(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  ids: readonly string[],
  columns?: readonly string[],
): Promise<Map<string, Entity>> {
  requireScope(principal, resource.scopes.read)
  const found = new Map<string, Entity>()
  const unique = [...new Set(ids)]
  for (const entity of await ctx.store.records.byIds(resource, principal.orgId, unique, columns)) {
    if (isVisible(ctx.schema, principal, resource, entity)) found.set(entity.id as string, entity)
  }
  return found
}

/**
 * The first page of `child` records under each of `parentIds`, as `listPage` with that parent would
 * answer it, in one statement (and one more for totals). Parents must already be known to belong
 * to the principal's organization; the rows are scoped to it again regardless. The query must be a
 * first page (no cursor): a cursor belongs to one parent's list.
 */
export async function listChildPages(
  ctx: EngineContext,
  principal: Principal,
  child: Resource,
  parentIds: readonly string[],
  query: ListQuery,
  columns?: readonly string[],
): Promise<Map<string, RecordPage>> {
  requireScope(principal, child.scopes.read)
  const page = query.page
  if (page.style !== 'cursor' || page.cursor !== undefined) {
    throw new Error('listChildPages takes first pages only')
  }
  const ids = [...new Set(parentIds)]
  const parentField = child.parent!.field
  const visible = [...query.where, ...visibilityConditions(ctx.schema, principal, child, query.where)]
  const children = await ctx.store.records.childPages(child, principal.orgId, ids, {
    where: visible,
    search: query.search,
    sort: query.sort,
    limit: page.limit + 1,
    columns,
  })
  const byParent = new Map<string, Entity[]>(ids.map((id) => [id, []]))
  for (const entity of children) byParent.get(entity[parentField] as string)?.push(entity)
  const totals = query.includeTotal
    ? await ctx.store.records.countChildren(child, principal.orgId, ids, visible, query.search)
    : null
  const pages = new Map<string, RecordPage>()
  for (const [parentId, data] of byParent) {
    const hasMore = data.length > page.limit
    if (hasMore) data.pop()
    const where = [...query.where, parentCondition(child, parentId)]
    pages.set(parentId, {
      data,
      hasMore,
      total: totals ? (totals.get(parentId) ?? 0) : null,
      cursorOf: cursorMaker(ctx, child, query.sort, cursorBinding(principal, child, where, query)),
    })
  }
  return pages
}
