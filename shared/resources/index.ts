import { addresses } from './addresses.ts'
import { comments } from './comments.ts'
import type { Action, Resource } from './define.ts'
import { events } from './events.ts'
import { lineItems } from './line-items.ts'
import { orders } from './orders.ts'
import { posts } from './posts.ts'
import { products } from './products.ts'
import { users } from './users.ts'
import { deliveries, webhookEndpoints } from './webhook-endpoints.ts'

export type { Action, Resource } from './define.ts'
export type { Field } from './fields.ts'

/** Every resource the API serves, in dependency order (parents and referenced ones first). */
export const RESOURCES: readonly Resource[] = [
  users,
  addresses,
  products,
  orders,
  lineItems,
  posts,
  comments,
  events,
  webhookEndpoints,
  deliveries,
]

const byName = new Map(RESOURCES.map((r) => [r.name, r]))

export function resourceByName(name: string): Resource | undefined {
  return byName.get(name)
}

/** The nested collections of a resource (`orders` -> `line-items`). */
export function childrenOf(resource: Resource): Resource[] {
  return RESOURCES.filter((r) => r.parent?.collection === resource.name)
}

// An action and a nested collection would share one path: /orders/{id}/line-items.
for (const resource of RESOURCES)
  for (const action of resource.actions)
    if (childrenOf(resource).some((child) => child.name === action.name))
      throw new Error(`${resource.name}: the action ${action.name} has the name of a nested collection`)

/** The action of a resource with this name. */
export function actionOf(resource: Resource, name: string): Action | undefined {
  return resource.actions.find((action) => action.name === name)
}

/** Every scope the service knows, in a stable order. */
export const ALL_SCOPES: readonly string[] = [
  ...new Set(
    RESOURCES.flatMap((r) =>
      r.writable ? [r.scopes.read, r.scopes.write, r.scopes.delete] : [r.scopes.read],
    ),
  ),
]
