import { camelCase } from '../../shared/query/fields.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'

/**
 * How GraphQL names derive from a resource declaration (contract, "GraphQL shape"): the type is
 * the singular in PascalCase (`LineItem`), the singular query field the singular (`lineItem`), the
 * plural one the collection in camelCase (`lineItems`), a relation the reference field without
 * `Id` (`productId` -> `product`).
 */

/** Where GraphQL is served, over HTTP and WebSocket. */
export const GRAPHQL_PATH = '/graphql'

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/

/** `LineItem` */
export const typeName = (resource: Resource) => pascal(resource.singular)

/** `lineItems`, from the collection name `line-items`. */
export const pluralField = (resource: Resource) => camelCase(resource.name.replace(/-/g, '_'))

/**
 * The collection descriptions name to illustrate: the first declared one, else the first served,
 * so a schema's documentation speaks of its own collections.
 */
export const illustrating = (resources: readonly Resource[]): Resource =>
  resources.find((r) => !r.service) ?? resources[0]!

/** A GraphQL argument name for a REST query parameter: `amount_gte` -> `amountGte`. */
export const argumentName = (param: string) => camelCase(param)

/** `userId` -> `user`: the object field that follows a reference. */
export function relationField(resource: Resource, field: string): string {
  if (!/^[a-z][A-Za-z0-9]*Id$/.test(field)) {
    throw new Error(`${resource.name}.${field}: a reference field's name must end in Id to name its relation`)
  }
  return field.slice(0, -2)
}

/** `OrderStatus` for `orders.status`. */
export const enumTypeName = (resource: Resource, field: string) => `${typeName(resource)}${pascal(field)}`

/**
 * GraphQL names for enum values. REST values are kept where they are valid GraphQL names (`paid`,
 * `pending`); a value that is not (`line-items`, `2fa`, `null`) gets a name with `_` in place of the
 * characters GraphQL refuses, and still means the REST value inside the server.
 */
export function enumValueNames(values: readonly string[]): Map<string, string> {
  const names = new Map<string, string>()
  const used = new Set<string>()
  for (const value of values) {
    let name = NAME.test(value) ? value : value.replace(/[^_0-9A-Za-z]/g, '_')
    if (!NAME.test(name) || ['true', 'false', 'null'].includes(name)) name = `_${name}`
    if (used.has(name))
      throw new Error(`enum values ${JSON.stringify(values)} give the GraphQL name ${name} twice`)
    used.add(name)
    names.set(value, name)
  }
  return names
}
