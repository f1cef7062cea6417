import { parseAcrossFields, type ShapeParams } from '../../shared/query/shape.ts'
import type { ListQuery } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import type { EngineContext, ParentRef } from './context.ts'
import type { Presentation } from './presentation.ts'
import { type Entity, listRecords, type Pagination } from './reads.ts'
import { scanRecords } from './scan.ts'
import { searchAll, searchableFor } from './search.ts'
import { columnsFor, resolveShape, shapedLastModified, shapeRecords } from './shape.ts'

/** A list's answer: the page body and when what it lists last changed (for Last-Modified). */
export interface ListAnswer {
  body: Record<string, unknown>
  lastModified: string
}

/** A test the store cannot run, applied to each record in memory (JSONPath filters beyond SQL). */
interface MemoryFilter {
  /** Sees the record as the client does (the presentation's). */
  keep: (record: Entity) => boolean
  /** Most records `keep` may look at in one request (422 past it). */
  budget: number
  /** Clock value after which the scan gives up with 503. */
  deadline: number
  /** Bound into the cursor, so that a cursor of another filter does not fit. */
  binding: string
}

interface ListRequest {
  /** The collection; undefined searches every searchable one the principal may read (`q` on /search). */
  resource?: Resource
  query: ListQuery
  /** The nested path the request came through (`/orders/{id}/line-items`). */
  parent?: ParentRef
  /** How the front door shows records (its API version's shape): they go out through it. */
  presentation: Presentation
  /** The request `pagination.next` continues: the same path and query string at the next position. */
  link: URL
  /** The applied filters, echoed as `filters` when there are any. */
  filters?: Record<string, unknown>
  /** /search has always echoed `filters`, even empty; collection lists leave it out then. */
  echoEmptyFilters?: boolean
  /** What the page shows of its records (a SQL column list, JSONPath nodes); the records themselves by default. */
  select?: (records: Entity[]) => unknown[]
  /** Pages through the records an in-memory test keeps (cursor pagination only). */
  inMemory?: MemoryFilter
  /** `fields` and `expand` as the client gave them (collection GETs, /search, form and JSON QUERY bodies). */
  shape?: ShapeParams
}

/**
 * One page of a collection (or of a cross-collection search), as every way of listing answers it:
 * REST GETs, /search, QUERY bodies and stored queries. The front doors parse their request into
 * `query`; authorization, the store and the envelope (`data`, `pagination` with `next`, `filters`)
 * are the same for all of them.
 */
export async function listPage(
  engine: EngineContext,
  principal: Principal,
  request: ListRequest,
): Promise<ListAnswer> {
  const { resource, presentation, query } = request
  if (!resource) return await searchPage(engine, principal, request)
  const memory = request.inMemory
  // Checked before anything is read: a bad field is 400 and an expansion the token may not read 403.
  const shape = request.shape && resolveShape(engine.schema, principal, resource, presentation, request.shape)
  const result = memory
    ? await scanRecords(
        engine,
        principal,
        resource,
        {
          where: query.where,
          sort: query.sort,
          limit: query.page.limit,
          cursor: query.page.style === 'cursor' ? query.page.cursor : undefined,
          keep: (entity) => memory.keep(presentation.records(resource, [entity])[0]!),
          budget: memory.budget,
          deadline: memory.deadline,
          binding: memory.binding,
        },
        request.parent,
      )
    : await listRecords(
        engine,
        principal,
        resource,
        query,
        request.parent,
        shape && columnsFor(presentation, resource, shape),
      )
  let data: unknown[]
  if (shape) data = await shapeRecords(engine, principal, resource, presentation, result.data, shape)
  else {
    const records = presentation.records(resource, result.data)
    data = request.select ? request.select(records) : records
  }
  return {
    body: pageBody(data, result.pagination, request.link, echoed(request)),
    lastModified: shape
      ? await shapedLastModified(engine, principal, shape, result.lastModified)
      : result.lastModified,
  }
}

/** Full-text search across collections: hits name their collection and carry the record. */
async function searchPage(
  engine: EngineContext,
  principal: Principal,
  request: ListRequest,
): Promise<ListAnswer> {
  const { query, presentation } = request
  const text = query.search
  if (text === undefined) throw new Error('a search across collections needs its text')
  const { sort, page, includeTotal } = query
  const fields =
    request.shape &&
    parseAcrossFields(request.shape, searchableFor(engine.schema, principal), presentation.fieldNames)
  // Each collection reads only the asked fields it has (with the id and timestamps, always read).
  const columnsOf = fields
    ? (collection: Resource) =>
        presentation.columnsOf(
          collection,
          fields.filter((name) => presentation.fieldNames(collection).includes(name)),
        )
    : undefined
  const result = await searchAll(engine, principal, text, { sort, page, includeTotal, columnsOf })
  const data = result.data.map((hit) => {
    const record = presentation.records(engine.schema.byName(hit.collection)!, [hit.record])[0]!
    return {
      collection: hit.collection,
      record: fields
        ? Object.fromEntries(Object.entries(record).filter(([name]) => fields.includes(name)))
        : record,
    }
  })
  return {
    body: pageBody(data, result.pagination, request.link, echoed(request)),
    lastModified: result.lastModified,
  }
}

function echoed(request: ListRequest): Record<string, unknown> | undefined {
  const { filters } = request
  if (filters === undefined) return undefined
  return request.echoEmptyFilters || Object.keys(filters).length > 0 ? filters : undefined
}

/** The envelope of every list answer: `data`, `pagination` with its `next`, and `filters` when given. */
export function pageBody(
  data: unknown[],
  pagination: Pagination,
  link: URL,
  filters?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = { data, pagination: withNext(link, pagination) }
  if (filters !== undefined) body.filters = filters
  return body
}

/** The same request moved to another position: `pagination.next`, the path of the next page. */
function nextPath(url: URL, name: 'cursor' | 'after', value: string | null | undefined): string | null {
  if (!value) return null
  // The first page of a walk has no position yet: the query string as given, plus the position.
  // Cursors and ids are URL-safe (base64url, TypeIDs), so nothing needs encoding.
  const safe = /^[\w.-]+$/.test(value)
  if (!url.searchParams.has(name) && safe)
    return `${url.pathname}?${url.search.length > 1 ? `${url.search.slice(1)}&` : ''}${name}=${value}`
  // A later page: the query string as given, its one position replaced.
  const parts = url.search.slice(1).split('&')
  const at = parts.findIndex((p) => p.startsWith(`${name}=`))
  if (safe && at >= 0 && parts.findLastIndex((p) => p === name || p.startsWith(`${name}=`)) === at) {
    parts[at] = `${name}=${value}`
    return `${url.pathname}?${parts.join('&')}`
  }
  const params = new URLSearchParams(url.searchParams)
  params.set(name, value)
  return `${url.pathname}?${params}`
}

/** Adds `next` to cursor and keyset pagination (spec: cursor style carries the next page's path). */
function withNext(url: URL, pagination: Pagination): Pagination & { next?: string | null } {
  if ('nextCursor' in pagination)
    return { ...pagination, next: nextPath(url, 'cursor', pagination.nextCursor) }
  if ('nextAfter' in pagination) return { ...pagination, next: nextPath(url, 'after', pagination.nextAfter) }
  return pagination
}
