import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import type { Field } from './fields.ts'

export interface ResourceInput {
  /** Collection name and path segment (`line-items`). */
  name: string
  /** Singular name in camelCase (`lineItem`); GraphQL fields and event types derive from it. */
  singular: string
  /** TypeID prefix (`lit`). */
  prefix: string
  /** Parent collection and the field that carries the parent's id, for nested collections. */
  parent?: { collection: string; field: string }
  /** Clients may create, change and delete records (false for the event log). */
  writable?: boolean
  fields: Record<string, Field>
}

/** A resource declaration: the single source of truth routes, SQL, GraphQL and the CLI derive from. */
export interface Resource extends Required<Omit<ResourceInput, 'parent'>> {
  parent?: { collection: string; field: string }
  table: string
  /** Scopes: `read:name`, `write:name`, and `delete:name` for bulk delete. */
  scopes: { read: string; write: string; delete: string }
  /** The record as the API returns it. */
  schema: TObject
  /** Fields a client may send. */
  writableFields: string[]
  filterable: string[]
  sortable: string[]
  searchable: string[]
  /** Fields a create that leaves them out fills with the caller: the token's user, null for a client. */
  callerDefaultFields: string[]
  /** Fields only an admin may set or change (a user's role). */
  privilegedFields: string[]
  /** Event type stem (`line_item`), as in `line_item.created`. */
  eventName: string
}

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** The fields every record has, read-only. */
export const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'] as const

export function defineResource(input: ResourceInput): Resource {
  const fields = input.fields
  const names = Object.keys(fields)
  const properties: Record<string, TSchema> = { id: Type.String({ description: `${input.prefix}_…` }) }
  for (const [name, f] of Object.entries(fields)) {
    properties[name] = f.nullable ? Type.Union([f.schema, Type.Null()]) : f.schema
  }
  properties.createdAt = Type.String({ format: 'date-time' })
  properties.updatedAt = Type.String({ format: 'date-time' })
  return {
    writable: true,
    ...input,
    table: snakeCase(input.name.replace(/-/g, '_')),
    scopes: { read: `read:${input.name}`, write: `write:${input.name}`, delete: `delete:${input.name}` },
    schema: Type.Object(properties, { additionalProperties: false, title: input.singular }),
    writableFields: names.filter((n) => !fields[n]!.readOnly),
    filterable: names.filter((n) => fields[n]!.filter !== undefined),
    sortable: ['createdAt', 'updatedAt', ...names.filter((n) => fields[n]!.sort)],
    searchable: names.filter((n) => fields[n]!.search),
    callerDefaultFields: names.filter((n) => fields[n]!.defaultToCaller),
    privilegedFields: names.filter((n) => fields[n]!.privileged),
    eventName: snakeCase(input.singular),
  }
}
