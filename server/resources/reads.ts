import { badRequest } from '../../shared/errors.ts'
import { stableOrder } from '../../shared/query/stable-order.ts'
import type { Condition, ListQuery, Page } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import type { Entity, SortValue } from '../store/types.ts'
import { loadParent, loadRecord } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import {
  isVisible,
  lastVisibleChange,
  requireVisible,
  visibilityConditions,
  visibilityFields,
} from './visibility.ts'

export type { Entity } from '../store/types.ts'

export interface Pagination {
  limit: number
  hasMore: boolean
  nextCursor?: string | null
  nextAfter?: string | null
  page?: number
  offset?: number
  total?: number | null
  totalPages?: number | null
}

interface ListResult {
  data: Entity[]
  pagination: Pagination
  /** The last change to any record of this collection in the organization (for Last-Modified). */
  lastModified: string
}

const EPOCH = new Date(0).toISOString()

export async function getRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  id: string,
  parent?: ParentRef,
  /** The fields to read (the store adds `id` and the timestamps); every field when absent. */
  columns?: readonly string[],
): Promise<Entity> {
  requireScope(principal, resource.scopes.read)
  const read = columns && [...columns, ...visibilityFields(resource)]
  const { entity } = await loadRecord(ctx, principal, resource, id, parent, false, read)
  requireVisible(ctx.schema, principal, resource, entity)
  return entity
}

/**
 * What a cursor is bound to: the caller's organization and everything that shapes the result.
 * It is never sent; the cursor's MAC covers it, so it needs no hashing of its own.
 */
export function cursorBinding(
  principal: Principal,
  resource: Resource,
  where: Condition[],
  query: ListQuery,
): string {
  return JSON.stringify([principal.orgId, resource.name, where, query.search ?? null, query.sort])
}

/**
 * The `pagination` of a page in cursor, page or offset style (spec: page and offset styles answer
 * page, limit, total and totalPages, totals only when asked); `nextCursor` is made only when more
 * follow, `total` is undefined when not asked for.
 */
export function paginationOf(
  page: Exclude<Page, { style: 'keyset' }>,
  hasMore: boolean,
  nextCursor: () => string | null,
  total: number | null | undefined,
): Pagination {
  if (page.style === 'cursor')
    return {
      limit: page.limit,
      hasMore,
      nextCursor: hasMore ? nextCursor() : null,
      ...(total !== undefined ? { total } : {}),
    }
  const known = total ?? null
  return {
    page: page.style === 'page' ? page.page : Math.floor(page.offset / page.limit) + 1,
    ...(page.style === 'offset' ? { offset: page.offset } : {}),
    limit: page.limit,
    total: known,
    totalPages: known === null ? null : Math.ceil(known / page.limit),
    hasMore,
  }
}

/**
 * The conditions of a list or an aggregate: the client's (`where`, with the nested path's parent,
 * checked first: 404 or 403), which cursors are bound to, and `visible`, those and what the
 * principal may see, applied on every page.
 */
export async function scopedConditions(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  given: readonly Condition[],
  parent: ParentRef | undefined,
): Promise<{ where: Condition[]; visible: Condition[] }> {
  const where = [...given]
  if (parent) {
    await loadParent(ctx, principal, resource, parent)
    where.push({ kind: 'compare', field: resource.parent!.field, op: 'eq', value: parent.id })
  }
  return { where, visible: [...where, ...visibilityConditions(ctx.schema, principal, resource, where)] }
}

export async function listRecords(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  query: ListQuery,
  parent?: ParentRef,
  /** The fields to read (the store adds what ordering and cursors need); every field when absent. */
  columns?: readonly string[],
): Promise<ListResult> {
  requireScope(principal, resource.scopes.read)
  const { where, visible } = await scopedConditions(ctx, principal, resource, query.where, parent)
  // Worked out once: the store's ORDER BY takes these keys as they are.
  const keys = stableOrder(query.sort)
  const sortValues = (entity: Entity) => ctx.store.records.sortValues(resource, entity, keys)
  const page = query.page
  const binding = page.style === 'cursor' ? cursorBinding(principal, resource, where, query) : ''
  let after: SortValue[] | undefined
  if (page.style === 'cursor' && page.cursor) after = ctx.cursors.decode(binding, page.cursor, keys.length)
  if (page.style === 'keyset') {
    const start = await ctx.store.records.find(resource, page.after)
    const otherParent = parent !== undefined && start?.entity[resource.parent!.field] !== parent.id
    const hidden = start !== null && !isVisible(ctx.schema, principal, resource, start.entity)
    if (!start || start.orgId !== principal.orgId || otherParent || hidden) {
      throw badRequest('The after parameter does not name a record of this collection.', [
        { field: 'after', message: `no ${resource.singular} with id ${page.after}` },
      ])
    }
    after = sortValues(start.entity)
  }
  const offset =
    page.style === 'page' ? (page.page - 1) * page.limit : page.style === 'offset' ? page.offset : 0
  const rows = await ctx.store.records.page(resource, principal.orgId, {
    where: visible,
    search: query.search,
    sort: keys,
    limit: page.limit + 1,
    offset,
    after,
    columns,
  })
  const hasMore = rows.length > page.limit
  if (hasMore) rows.pop()
  const total = query.includeTotal
    ? await ctx.store.records.count(resource, principal.orgId, visible, query.search)
    : null
  const last = rows.at(-1)
  const pagination: Pagination =
    page.style === 'keyset'
      ? {
          limit: page.limit,
          hasMore,
          nextAfter: hasMore && last ? (last.id as string) : null,
          ...(query.includeTotal ? { total } : {}),
        }
      : paginationOf(
          page,
          hasMore,
          () => (last ? ctx.cursors.encode(binding, sortValues(last)) : null),
          query.includeTotal ? total : undefined,
        )
  return {
    data: rows,
    pagination,
    lastModified: (await lastVisibleChange(ctx, principal, resource)) ?? EPOCH,
  }
}
