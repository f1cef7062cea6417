/**
 * A schema as a schema file declares it (docs/schema.md), and the two ways between it and the
 * resources the server serves: `schemaFromDeclaration` builds them, `declarationOf` gives back the
 * declaration of a schema in force, so it can be printed, recorded in the database with each
 * applied change, and compared with the next one. The file is checked before it gets here
 * (shared/schema/file.ts); this module trusts its input.
 */
import { type ActionInput, defineResource, type Resource, type ResourceInput } from '../resources/define.ts'
import { events } from '../resources/events.ts'
import {
  boolean,
  enumeration,
  type Field,
  type FieldDeclaration,
  integer,
  json,
  list,
  reference,
  text,
  timestamp,
} from '../resources/fields.ts'
import { oauthClients } from '../resources/oauth-clients.ts'
import { users } from '../resources/users.ts'
import { deliveries, webhookEndpoints } from '../resources/webhook-endpoints.ts'
import { createSchema, type Schema } from './schema.ts'

/** A state change (`lend`: `status` from `available` to `lent`). */
type ActionDeclaration = Required<Pick<ActionInput, 'field' | 'from' | 'to' | 'past' | 'summary'>>

export interface ResourceDeclaration {
  singular: string
  prefix: string
  description?: string
  /** Nested under `collection`; `field` carries the parent's id (added, read-only, when not declared). */
  parent?: { collection: string; field: string }
  fields: Record<string, FieldDeclaration>
  actions?: Record<string, ActionDeclaration>
  renamedFrom?: string
}

/** The collections of a schema file, by name, in the file's order. */
export interface SchemaDeclaration {
  resources: Record<string, ResourceDeclaration>
}

/** The service's own collections: always served, never declared by a schema file. */
export const SERVICE_RESOURCES: readonly Resource[] = [
  users,
  events,
  webhookEndpoints,
  deliveries,
  oauthClients,
]

/** The field a declaration describes; `prefixOf` gives the id prefix of a referenced collection. */
export function fieldFromDeclaration(
  declaration: FieldDeclaration,
  prefixOf: (collection: string) => string,
): Field {
  const { type, values, to, ...options } = declaration
  switch (type) {
    case 'text':
      return text(options)
    case 'integer':
      return integer(options)
    case 'boolean':
      return boolean(options)
    case 'enum':
      return enumeration(values ?? [], options)
    case 'reference':
      return reference(to!, prefixOf(to!), options)
    case 'timestamp':
      return timestamp(options)
    case 'json':
      return json(options)
    case 'list':
      return list(options)
  }
}

/** The resource a declaration describes; a nested one gets its parent's field when it lacks it. */
export function resourceFromDeclaration(
  name: string,
  declaration: ResourceDeclaration,
  prefixOf: (collection: string) => string,
): Resource {
  const fields: Record<string, Field> = {}
  const parent = declaration.parent
  if (parent && !Object.hasOwn(declaration.fields, parent.field))
    fields[parent.field] = reference(parent.collection, prefixOf(parent.collection), {
      readOnly: true,
      filter: 'eq',
    })
  for (const [field, d] of Object.entries(declaration.fields))
    fields[field] = fieldFromDeclaration(d, prefixOf)
  const input: ResourceInput = {
    name,
    singular: declaration.singular,
    prefix: declaration.prefix,
    fields,
    ...(parent ? { parent } : {}),
    ...(declaration.actions ? { actions: declaration.actions } : {}),
    ...(declaration.description ? { description: declaration.description } : {}),
    ...(declaration.renamedFrom ? { renamedFrom: declaration.renamedFrom } : {}),
  }
  return defineResource(input)
}

/**
 * The schema a declaration describes: the service's own collections and the declared ones, these in
 * dependency order (a parent and every referenced collection before the collections that need it),
 * otherwise in the file's order.
 */
export function schemaFromDeclaration(declaration: SchemaDeclaration): Schema {
  const declared = declaration.resources
  const prefixOf = (collection: string) =>
    declared[collection]?.prefix ?? SERVICE_RESOURCES.find((r) => r.name === collection)?.prefix ?? collection
  const ordered: string[] = []
  const visit = (name: string, path: readonly string[]) => {
    if (ordered.includes(name) || path.includes(name) || !declared[name]) return
    const d = declared[name]
    const needs = [
      ...(d.parent ? [d.parent.collection] : []),
      ...Object.values(d.fields).flatMap((f) => (f.type === 'reference' && f.to ? [f.to] : [])),
    ]
    for (const need of needs) visit(need, [...path, name])
    ordered.push(name)
  }
  for (const name of Object.keys(declared)) visit(name, [])
  const [usersResource, ...others] = SERVICE_RESOURCES
  return createSchema([
    usersResource!,
    ...ordered.map((name) => resourceFromDeclaration(name, declared[name]!, prefixOf)),
    ...others,
  ])
}

/** The declaration of one declared resource: every field with every option it was given. */
export function resourceDeclarationOf(resource: Resource): ResourceDeclaration {
  const actions = resource.actions.filter((a) => a.field !== undefined)
  return {
    singular: resource.singular,
    prefix: resource.prefix,
    ...(resource.description ? { description: resource.description } : {}),
    ...(resource.parent ? { parent: { ...resource.parent } } : {}),
    fields: Object.fromEntries(
      Object.entries(resource.fields).map(([name, f]) => [name, { ...f.declaration }]),
    ),
    ...(actions.length > 0
      ? {
          actions: Object.fromEntries(
            actions.map(({ name, field, from, to, past, summary }) => [
              name,
              { field: field!, from: [...from!], to: to!, past, summary },
            ]),
          ),
        }
      : {}),
    ...(resource.renamedFrom ? { renamedFrom: resource.renamedFrom } : {}),
  }
}

/** The declaration of a schema in force: its declared collections, never the service's own. */
export function declarationOf(schema: Schema): SchemaDeclaration {
  return {
    resources: Object.fromEntries(
      schema.resources.filter((r) => !r.service).map((r) => [r.name, resourceDeclarationOf(r)]),
    ),
  }
}
