import { createSchema, type Schema } from '../schema/schema.ts'
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

/**
 * The built-in example (a shop), served when no schema file is given; built anew on each call,
 * so an entry point builds it once and hands it down.
 */
export function exampleSchema(): Schema {
  // In dependency order: parents and referenced ones first.
  return createSchema([
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
  ])
}

/** The action of a resource with this name. */
export function actionOf(resource: Resource, name: string): Action | undefined {
  return resource.actions.find((action) => action.name === name)
}
