import type { Resource } from '../resources/define.ts'

/**
 * The resources one server serves, built once at start and handed to every part that needs them
 * (the engine's context, the store, the front doors, the documents): no module holds a list of its
 * own, so one process may serve two schemas side by side.
 */
export interface Schema {
  /** Every resource served, in dependency order (parents and referenced ones first). */
  readonly resources: readonly Resource[]
  /** The resource with this collection name. */
  byName(name: string): Resource | undefined
  /** The nested collections of a resource (`orders` -> `line-items`). */
  childrenOf(resource: Resource): readonly Resource[]
  /** Every scope the resources need, in a stable order. */
  readonly scopes: readonly string[]
}

/**
 * A schema of `resources`, given in dependency order; throws when two of them would share a path
 * (an action named as a nested collection).
 */
export function createSchema(resources: readonly Resource[]): Schema {
  const byName = new Map(resources.map((r) => [r.name, r]))
  const children = new Map<string, Resource[]>()
  for (const resource of resources) {
    if (!resource.parent) continue
    const list = children.get(resource.parent.collection) ?? []
    children.set(resource.parent.collection, [...list, resource])
  }
  const childrenOf = (resource: Resource): readonly Resource[] => children.get(resource.name) ?? []
  // An action and a nested collection would share one path: /orders/{id}/line-items.
  for (const resource of resources)
    for (const action of resource.actions)
      if (childrenOf(resource).some((child) => child.name === action.name))
        throw new Error(`${resource.name}: the action ${action.name} has the name of a nested collection`)
  const scopes = [
    ...new Set(
      resources.flatMap((r) =>
        r.writable ? [r.scopes.read, r.scopes.write, r.scopes.delete] : [r.scopes.read],
      ),
    ),
  ]
  return {
    resources,
    byName: (name) => byName.get(name),
    childrenOf,
    scopes,
  }
}
