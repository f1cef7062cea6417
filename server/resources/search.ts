import { sha256Base64url } from '../../shared/crypto.ts'
import { badRequest } from '../../shared/errors.ts'
import { stableOrder } from '../../shared/query/stable-order.ts'
import type { Page, SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'
import type { SortValue } from '../store/types.ts'
import type { EngineContext } from './context.ts'
import type { Entity, Pagination } from './reads.ts'
import { isVisible, lastVisibleChange, visibilityConditions } from './visibility.ts'

export interface SearchHit {
  collection: string
  record: Entity
}

interface SearchResult {
  data: SearchHit[]
  pagination: Pagination
  lastModified: string
  /** The cursor of the page that starts right after `hit` (what `nextCursor` is for the last one). */
  cursorOf: (hit: SearchHit) => string
}

/** Collections `q` searches: those with searchable fields the principal may read. */
export function searchableFor(schema: Schema, principal: Principal, only?: Resource): Resource[] {
  return schema.resources.filter(
    (r) => r.searchable.length > 0 && principal.scopes.has(r.scopes.read) && (!only || r === only),
  )
}

/** What a search's cursors are bound to: the organization, the text and the order. */
function searchBinding(principal: Principal, text: string, sort: SortKey[]): string {
  return sha256Base64url(JSON.stringify([principal.orgId, 'search', text, sort]))
}

/**
 * Full-text search across collections, newest first (or by `sort` on createdAt/updatedAt): each
 * collection answers its best `n` rows through its own index, and the lists are merged. Cursors
 * and `after` carry the (timestamp, id) of the last hit, which orders hits of every collection.
 * Every front door searches through here (/search over REST and QUERY, GraphQL's `search`), so a
 * cursor one of them hands out continues the same search in another.
 */
export async function searchAll(
  ctx: EngineContext,
  principal: Principal,
  text: string,
  options: {
    sort: SortKey[]
    page: Page
    includeTotal: boolean
    only?: Resource
    /** The fields to read of each collection's hits (`fields=`); every field when absent. */
    columnsOf?: (collection: Resource) => readonly string[]
  },
): Promise<SearchResult> {
  const collections = searchableFor(ctx.schema, principal, options.only)
  if (collections.length === 0) {
    throw badRequest('No collection this token may read is searchable.', [
      { field: 'q', message: 'nothing to search' },
    ])
  }
  const sort = options.sort
  const key = sort[0]!
  const { page } = options
  const binding = searchBinding(principal, text, sort)
  const cursorOf = (hit: SearchHit) =>
    ctx.cursors.encode(
      binding,
      ctx.store.records.sortValues(ctx.schema.byName(hit.collection)!, hit.record, stableOrder([key])),
    )
  let after: SortValue[] | undefined
  if (page.style === 'cursor' && page.cursor) after = ctx.cursors.decode(binding, page.cursor, 2)
  if (page.style === 'keyset') after = await keysetStart(ctx, principal, collections, key, page.after)
  const skip =
    page.style === 'page' ? (page.page - 1) * page.limit : page.style === 'offset' ? page.offset : 0
  const want = skip + page.limit + 1
  const hits: { collection: Resource; entity: Entity }[] = []
  for (const collection of collections) {
    const entities = await ctx.store.records.page(collection, principal.orgId, {
      where: visibilityConditions(ctx.schema, principal, collection, []),
      search: text,
      sort,
      limit: want,
      after,
      columns: options.columnsOf?.(collection),
    })
    for (const entity of entities) hits.push({ collection, entity })
  }
  // createdAt or updatedAt (the sortable fields of a search): the same in every collection.
  const field = key.field
  hits.sort((a, b) => {
    const order = compare(a.entity[field], b.entity[field]) || compare(a.entity.id, b.entity.id)
    return key.descending ? -order : order
  })
  const pageHits = hits.slice(skip, skip + page.limit)
  const hasMore = hits.length > skip + page.limit
  const total = options.includeTotal
    ? (
        await Promise.all(
          collections.map((c) =>
            ctx.store.records.count(
              c,
              principal.orgId,
              visibilityConditions(ctx.schema, principal, c, []),
              text,
            ),
          ),
        )
      ).reduce((n, count) => n + count, 0)
    : null
  const data = pageHits.map((h) => ({ collection: h.collection.name, record: h.entity }))
  const last = data.at(-1)
  let pagination: Pagination
  if (page.style === 'cursor') {
    pagination = { limit: page.limit, hasMore, nextCursor: hasMore && last ? cursorOf(last) : null }
    if (options.includeTotal) pagination.total = total
  } else if (page.style === 'keyset') {
    pagination = {
      limit: page.limit,
      hasMore,
      nextAfter: hasMore && last ? (last.record.id as string) : null,
    }
    if (options.includeTotal) pagination.total = total
  } else {
    pagination = {
      page: page.style === 'page' ? page.page : Math.floor(skip / page.limit) + 1,
      ...(page.style === 'offset' ? { offset: page.offset } : {}),
      limit: page.limit,
      total,
      totalPages: total === null ? null : Math.ceil(total / page.limit),
      hasMore,
    }
  }
  const changes = (await Promise.all(collections.map((c) => lastVisibleChange(ctx, principal, c)))).map(
    (at) => at ?? '',
  )
  return {
    data,
    pagination,
    lastModified: changes.filter(Boolean).sort().at(-1) ?? new Date(0).toISOString(),
    cursorOf,
  }
}

const compare = (a: unknown, b: unknown) =>
  (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0

async function keysetStart(
  ctx: EngineContext,
  principal: Principal,
  collections: Resource[],
  key: SortKey,
  id: string,
) {
  const collection = collections.find((c) => id.startsWith(`${c.prefix}_`))
  const found = collection ? await ctx.store.records.find(collection, id) : null
  const hidden =
    found !== null && collection !== undefined && !isVisible(ctx.schema, principal, collection, found.entity)
  if (!found || !collection || found.orgId !== principal.orgId || hidden) {
    throw badRequest('The after parameter does not name a searchable record.', [
      { field: 'after', message: `no record with id ${id.slice(0, 100)}` },
    ])
  }
  return ctx.store.records.sortValues(collection, found.entity, stableOrder([key]))
}
