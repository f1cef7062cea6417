import type { Resource } from '../../shared/resources/index.ts'
import type { ParentRef } from '../resources/context.ts'

/** The nested path a request came through (`/orders/{parentId}/line-items`), if it did. */
export function parentOf(resource: Resource, params: Record<string, string>): ParentRef | undefined {
  return resource.parent && params.parentId
    ? { collection: resource.parent.collection, id: params.parentId }
    : undefined
}
