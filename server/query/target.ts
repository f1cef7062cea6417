import { isId } from '../../shared/ids.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { ParentRef } from '../resources/context.ts'

/**
 * What a QUERY is sent to: a collection (maybe nested under a parent), its aggregates
 * (`/{collection}/aggregates`, v2) or /api/v1/search.
 */
export type QueryTarget =
  | { kind: 'collection' | 'aggregates'; resource: Resource; parent?: ParentRef }
  | { kind: 'search' }

/**
 * The target a stored query's path names (`/api/v1/orders`, `/api/v1/orders/ord_…/line-items`,

 * `/api/v2/orders/aggregates`, `/api/v1/search`), the same routes the QUERY was accepted on; undefined for anything else.
 */
export function targetOfPath(schema: Schema, prefix: string, path: string): QueryTarget | undefined {
  if (!path.startsWith(`${prefix}/`)) return undefined
  const parts = path.slice(prefix.length + 1).split('/')
  if (parts.length === 1 && parts[0] === 'search') return { kind: 'search' }
  // A collection's aggregates: the collection's path and `/aggregates`.
  if ((parts.length === 2 || parts.length === 4) && parts.at(-1) === 'aggregates') {
    const target = targetOfPath(schema, prefix, path.slice(0, -'/aggregates'.length))
    return target?.kind === 'collection' ? { ...target, kind: 'aggregates' } : undefined
  }
  if (parts.length === 1) {
    const resource = schema.byName(parts[0]!)
    return resource ? { kind: 'collection', resource } : undefined
  }
  if (parts.length === 3) {
    const resource = schema.byName(parts[2]!)
    const parent = resource?.parent ? schema.byName(resource.parent.collection) : undefined
    if (!resource || !parent || parent.name !== parts[0] || !isId(parts[1], parent.prefix)) return undefined
    return { kind: 'collection', resource, parent: { collection: parent.name, id: parts[1]! } }
  }
  return undefined
}
