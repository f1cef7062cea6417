import shop from '../example/shop.schema.json' with { type: 'json' }
import { declarationOf, type SchemaDeclaration, schemaFromDeclaration } from '../schema/declaration.ts'
import type { Schema } from '../schema/schema.ts'
import type { Action, Resource } from './define.ts'

export type { Action, Resource } from './define.ts'
export type { Field } from './fields.ts'

/**
 * The built-in example (a shop, shared/example/shop.schema.json), served when no schema file is
 * given; built anew on each call, so an entry point builds it once and hands it down.
 */
export function exampleSchema(): Schema {
  // The file is a schema file like any other; test/schema/example.test.ts checks it as one.
  return schemaFromDeclaration(shop as SchemaDeclaration)
}

/**
 * The declaration of the built-in example as a schema in force gives it back (declarationOf): what
 * a database made before schema files holds, since those releases served the example.
 */
export function exampleDeclaration(): SchemaDeclaration {
  return declarationOf(exampleSchema())
}

/** The action of a resource with this name. */
export function actionOf(resource: Resource, name: string): Action | undefined {
  return resource.actions.find((action) => action.name === name)
}
