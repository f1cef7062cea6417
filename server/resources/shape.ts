import {
  expansionForbidden,
  expansionsOf,
  parseShape,
  type Shape,
  type ShapeParams,
  shapeQuery,
} from '../../shared/query/shape.ts'
import { DEFAULT_SORT, type ListQuery } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'
import type { EngineContext } from './context.ts'
import type { Presentation, Shown } from './presentation.ts'
import type { Entity } from './reads.ts'
import { getRecords, listChildPages, type RecordPage } from './related.ts'
import { lastVisibleChange } from './visibility.ts'

/**
 * `fields` and `expand` of a read against the field names the client sees, with the read scope of
 * every expanded relation checked before anything is read: 403 naming the relation without it.
 */
export function resolveShape(
  schema: Schema,
  principal: Principal,
  resource: Resource,
  presentation: Presentation,
  params: ShapeParams,
): Shape {
  const shape = parseShape(schema, resource, params, presentation.fieldNames)
  for (const { path, expansion } of expansionsOf(shape)) {
    const scope = expansion.relation.target.scopes.read
    if (!principal.scopes.has(scope)) throw expansionForbidden(path, scope)
  }
  return shape
}

/**
 * The internal fields the store must read for records shown in `shape`: those that show the fields
 * asked for, and the references that expansions follow. Undefined (every field) without `fields`.
 */
export function columnsFor(
  presentation: Presentation,
  resource: Resource,
  shape: Shape,
): string[] | undefined {
  if (shape.fields === null) return undefined
  const columns = new Set(presentation.columnsOf(resource, shape.fields))
  for (const { relation } of shape.expand) if (relation.kind === 'reference') columns.add(relation.field)
  return [...columns]
}

/** The record with only `fields` (in its own order), or whole without them. */
function project(record: Shown, fields: readonly string[] | null): Shown {
  if (fields === null) return record
  const out: Shown = {}
  for (const name in record) if (fields.includes(name)) out[name] = record[name]
  return out
}

/**
 * Records read in the internal shape, as the client sees them in `shape`: their `fields` and, for
 * each expansion, the related record (`user`, null when it is gone) or the first page of the
 * nested collection (`lineItems: {data, pagination}`). Each relation costs one statement for the
 * whole page (one per 500 parents), however many records it holds, at each level.
 */
export async function shapeRecords(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  presentation: Presentation,
  records: readonly Entity[],
  shape: Shape,
): Promise<Shown[]> {
  const added: Shown[] = records.map(() => ({}))
  for (const { relation, shape: inner } of shape.expand) {
    const target = relation.target
    const columns = columnsFor(presentation, target, inner)
    if (relation.kind === 'reference') {
      const ids = records.map((r) => r[relation.field]).filter((id): id is string => typeof id === 'string')
      const found =
        ids.length > 0 ? await getRecords(ctx, principal, target, ids, columns) : new Map<string, Entity>()
      const related = [...found.values()]
      const shown = await shapeRecords(ctx, principal, target, presentation, related, inner)
      const byId = new Map(related.map((entity, i) => [entity.id as string, shown[i]]))
      records.forEach((record, i) => {
        added[i]![relation.name] = byId.get(record[relation.field] as string) ?? null
      })
      continue
    }
    const query: ListQuery = {
      where: [],
      sort: DEFAULT_SORT,
      page: { style: 'cursor', limit: shape.limit },
      includeTotal: false,
    }
    const parentIds = records.map((r) => r.id as string)
    const pages =
      parentIds.length > 0
        ? await listChildPages(ctx, principal, target, parentIds, query, columns)
        : new Map<string, RecordPage>()
    const children = [...pages.values()].flatMap((page) => page.data)
    const shown = await shapeRecords(ctx, principal, target, presentation, children, inner)
    const byChild = new Map(children.map((entity, i) => [entity, shown[i]]))
    const again = shapeQuery(inner)
    records.forEach((record, i) => {
      const page = pages.get(record.id as string)!
      const last = page.data.at(-1)
      const nextCursor = page.hasMore && last ? page.cursorOf(last) : null
      const path = `${presentation.prefix}/${resource.name}/${record.id as string}/${target.name}`
      added[i]![relation.name] = {
        data: page.data.map((entity) => byChild.get(entity)),
        pagination: {
          limit: shape.limit,
          hasMore: page.hasMore,
          nextCursor,
          next: nextCursor
            ? `${path}?limit=${shape.limit}${again ? `&${again}` : ''}&cursor=${nextCursor}`
            : null,
        },
      }
    })
  }
  const whole = presentation.records(resource, [...records])
  return whole.map((record, i) => {
    const shown = project(record, shape.fields)
    return shape.expand.length > 0 ? { ...shown, ...added[i] } : shown
  })
}

/**
 * Last-Modified of a shaped answer: what it lists changed at `own`, and expanded records may have
 * changed since; the latest change of each expanded collection counts too, so that
 * If-Modified-Since never answers 304 over a changed related record.
 */
export async function shapedLastModified(
  ctx: EngineContext,
  principal: Principal,
  shape: Shape,
  own: string,
): Promise<string> {
  let last = own
  for (const { expansion } of expansionsOf(shape)) {
    const at = await lastVisibleChange(ctx, principal, expansion.relation.target)
    if (at !== null && at > last) last = at
  }
  return last
}
