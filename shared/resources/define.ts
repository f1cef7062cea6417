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
  /**
   * Declared fields a record shows as one object, by key: `actor: { type: 'actorType', id:
   * 'actorId' }` shows the stored `actorType` and `actorId` as `actor: {type, id}`, null when
   * every member is null. Each member stays a field of its own for storage and filters
   * (`actor_id=`). Read-only resources only: a write body has no object to take apart.
   */
  objects?: Record<string, Record<string, string>>
  /** Actions on one record (`POST /{collection}/{id}/{action}`), by name (`cancel`). */
  actions?: Record<string, ActionInput>
  /** The collection whose scopes guard this one (a webhook endpoint's deliveries use the endpoint's). */
  scopesOf?: string
  /** The table, when it is not the collection's name in snake_case. */
  table?: string
  /**
   * Values a record shows only in the answer to its create or to an action, never in a read, an
   * event or a list (a webhook endpoint's signing `secret`), by name and description.
   */
  revealed?: Record<string, string>
  /**
   * The server changes these records without an event (the webhook worker's deliveries): a read
   * of them, or expanding them, is never answered from the response cache, whose validity rests
   * on every change appending an event (server/http/response-cache.ts).
   */
  changedWithoutEvents?: boolean
  /**
   * The service's own (users, events, webhook endpoints and their deliveries): always served, its
   * table made by the service's migrations; a schema file declares the others.
   */
  service?: boolean
  /**
   * Only an admin's tokens may carry its scopes (an organization's OAuth clients): a member's and a
   * viewer's never do, whatever they ask (server/auth/roles.ts).
   */
  adminOnly?: boolean
  /** What the collection holds, in a sentence (OpenAPI's and GraphQL's description). */
  description?: string
  /** The collection's name in the previous schema, whose records it keeps. */
  renamedFrom?: string
}

/**
 * An action moves a record from one state to another: it sets `field` to `to` when the field holds
 * one of `from`, and answers 409 naming the current state otherwise. An action without `field` is
 * the server's own (a webhook endpoint's `rotate-secret`): `effect` says what it does.
 */
export interface ActionInput {
  /** The field that holds the record's state (`status`, `published`). */
  field?: string
  /** The states the action may start from. */
  from?: readonly (string | boolean)[]
  /** The state it leaves the record in. */
  to?: string | boolean
  /** What an action without `field` does, in a sentence (OpenAPI's and GraphQL's description). */
  effect?: string
  /** The past tense, the event's change (`cancelled`, in `order.cancelled`). */
  past: string
  /** What it does, in a few words (OpenAPI's summary, GraphQL's description). */
  summary: string
}

export interface Action extends ActionInput {
  /** The path segment (`cancel`, `rotate-secret`). */
  name: string
}

/** A resource declaration: the single source of truth routes, SQL, GraphQL and the CLI derive from. */
export interface Resource
  extends Required<
    Omit<
      ResourceInput,
      | 'parent'
      | 'actions'
      | 'scopesOf'
      | 'table'
      | 'revealed'
      | 'changedWithoutEvents'
      | 'service'
      | 'adminOnly'
      | 'description'
      | 'renamedFrom'
    >
  > {
  /** The service's own: its table comes from the service's migrations, not from a schema file. */
  service: boolean
  adminOnly: boolean
  description?: string
  renamedFrom?: string
  /** Reads of it may be kept by the response cache (every change appends an event). */
  cacheable: boolean
  /** The keys of a record as clients see it, in order: fields, with each object at its first member's place. */
  presented: string[]
  parent?: { collection: string; field: string }
  /** Its actions, in declaration order. */
  actions: readonly Action[]
  table: string
  revealed: Record<string, string>
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

/** The object a field is a member of (`actorId` -> `actor`), if any. */
export function objectOf(resource: Pick<Resource, 'objects'>, field: string): string | undefined {
  for (const [name, members] of Object.entries(resource.objects))
    if (Object.values(members).includes(field)) return name
  return undefined
}

function presentedKeys(input: ResourceInput): string[] {
  const objects = input.objects ?? {}
  if (input.writable !== false && Object.keys(objects).length > 0)
    throw new Error(`${input.name}: objects are for read-only resources`)
  const keys: string[] = []
  for (const name of Object.keys(input.fields)) {
    const object = objectOf({ objects }, name) ?? name
    if (!keys.includes(object)) keys.push(object)
  }
  for (const [name, members] of Object.entries(objects)) {
    if (Object.hasOwn(input.fields, name))
      throw new Error(`${input.name}: object ${name} clashes with a field`)
    for (const member of Object.values(members))
      if (!Object.hasOwn(input.fields, member)) throw new Error(`${input.name}.${name}: no field ${member}`)
  }
  return keys
}

export function defineResource(input: ResourceInput): Resource {
  const fields = input.fields
  const names = Object.keys(fields)
  const objects = input.objects ?? {}
  const presented = presentedKeys(input)
  const properties: Record<string, TSchema> = { id: Type.String({ description: `${input.prefix}_…` }) }
  const revealed = input.revealed ?? {}
  for (const name of presented) {
    const members = objects[name]
    if (members) {
      const shape = Object.fromEntries(Object.entries(members).map(([key, f]) => [key, fields[f]!.schema]))
      const nullable = Object.values(members).some((f) => fields[f]!.nullable)
      const object = Type.Object(shape, { additionalProperties: false })
      properties[name] = nullable ? Type.Union([object, Type.Null()]) : object
    } else {
      const f = fields[name]!
      properties[name] = f.nullable ? Type.Union([f.schema, Type.Null()]) : f.schema
    }
  }
  properties.createdAt = Type.String({ format: 'date-time' })
  properties.updatedAt = Type.String({ format: 'date-time' })
  for (const [name, description] of Object.entries(revealed))
    properties[name] = Type.Optional(Type.String({ description }))
  const guard = input.scopesOf ?? input.name
  const { scopesOf: _, revealed: __, changedWithoutEvents, service, adminOnly, ...rest } = input
  return {
    writable: true,
    ...rest,
    service: service ?? false,
    adminOnly: adminOnly ?? false,
    cacheable: !changedWithoutEvents,
    objects,
    presented,
    revealed,
    table: input.table ?? snakeCase(input.name.replace(/-/g, '_')),
    scopes: { read: `read:${guard}`, write: `write:${guard}`, delete: `delete:${guard}` },
    schema: Type.Object(properties, {
      additionalProperties: false,
      title: input.singular,
      ...(input.description ? { description: input.description } : {}),
    }),
    writableFields: names.filter((n) => !fields[n]!.readOnly),
    filterable: names.filter((n) => fields[n]!.filter !== undefined),
    sortable: ['createdAt', 'updatedAt', ...names.filter((n) => fields[n]!.sort)],
    searchable: names.filter((n) => fields[n]!.search),
    callerDefaultFields: names.filter((n) => fields[n]!.defaultToCaller),
    privilegedFields: names.filter((n) => fields[n]!.privileged),
    eventName: snakeCase(input.singular),
    actions: Object.entries(input.actions ?? {}).map(([name, action]) =>
      checkedAction(input, { name, ...action }),
    ),
  }
}

/** An action's name: a path segment of lowercase words joined by `-` (`lend`, `rotate-secret`). */
export const ACTION_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
/** The changes every collection's events have already (`book.created`): no action's past tense. */
export const CHANGES: readonly string[] = ['created', 'updated', 'deleted']

/**
 * An action must name a state field of its resource and states that field can hold; one without a
 * field (the server's own) says what it does instead, and may act on a read-only resource.
 */
function checkedAction(input: ResourceInput, action: Action): Action {
  const where = `${input.name} action ${action.name}`
  if (!ACTION_NAME.test(action.name)) throw new Error(`${where}: the name must be a lower-case path segment`)
  if (!/^[a-z_]+$/.test(action.past) || CHANGES.includes(action.past))
    throw new Error(`${where}: the past tense ${action.past} would not give an event type of its own`)
  if (action.field === undefined) {
    if (action.from !== undefined || action.to !== undefined || !action.effect)
      throw new Error(`${where}: without a field it takes no from or to, and needs an effect`)
    return action
  }
  const field = input.fields[action.field]
  if (input.writable === false) throw new Error(`${where}: ${input.name} is read-only`)
  if (action.from === undefined || action.to === undefined)
    throw new Error(`${where}: a state change needs from and to`)
  if (!field || (field.kind !== 'enum' && field.kind !== 'boolean'))
    throw new Error(`${where}: ${action.field} must be an enum or boolean field`)
  const states: readonly unknown[] = field.kind === 'enum' ? field.values! : [true, false]
  for (const state of [...action.from, action.to])
    if (!states.includes(state))
      throw new Error(`${where}: ${String(state)} is not a state of ${action.field}`)
  if (action.from.length === 0 || action.from.includes(action.to))
    throw new Error(`${where}: it must start from at least one state other than ${String(action.to)}`)
  return action
}
