import type { Resource } from '../../shared/resources/index.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

/** The built-in example's schema, built once for a test file. */
const EXAMPLE = exampleSchema()

/** A collection of the built-in example, by name (`orders`). */
export function example(name: string): Resource {
  const resource = EXAMPLE.byName(name)
  if (!resource) throw new Error(`the example has no collection ${name}`)
  return resource
}

/** The values of an enum field of the example (`example('orders')`, `status`). */
export const valuesOf = (name: string, field: string): readonly string[] =>
  example(name).fields[field]!.values!
