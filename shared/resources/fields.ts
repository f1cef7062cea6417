import { type TSchema, Type } from '@sinclair/typebox'
import '../formats.ts'

/** How a field is stored and converted between JSON and SQLite. */
export type FieldKind = 'text' | 'integer' | 'boolean' | 'enum' | 'reference' | 'json' | 'timestamp'

/** Filters a field accepts as query parameters: `field=` and/or `field_gte=`/`field_lte=`. */
export type FilterKind = 'eq' | 'range' | 'eq+range'

export interface Field {
  kind: FieldKind
  /** TypeBox schema of a non-null value. */
  schema: TSchema
  /** Must be sent on create (and on PUT). */
  required: boolean
  /** May be null; PUT resets an omitted nullable field to null. */
  nullable: boolean
  /** Value on create and after PUT when omitted. */
  default?: unknown
  /** Set by the service (or from the parent path), never by a client. */
  readOnly: boolean
  filter?: FilterKind
  sort: boolean
  search: boolean
  /** Collection whose record this field points at, in the same organization. */
  references?: string
  /** Unique within the organization. */
  unique: boolean
  /**
   * On create, an omitted value is the user the token was issued for, or null for a
   * client-credentials token (a comment's author). PUT resets it to null like any nullable field.
   */
  defaultToCaller: boolean
  /**
   * Grants access (a user's role): only a principal holding the collection's `delete:` scope, an
   * admin's, may set it to anything but its default on create or change it afterwards.
   */
  privileged: boolean
  /** Enum values, for `enum` fields. */
  values?: readonly string[]
}

interface FieldOptions {
  required?: boolean
  nullable?: boolean
  default?: unknown
  readOnly?: boolean
  filter?: FilterKind
  sort?: boolean
  search?: boolean
  unique?: boolean
  defaultToCaller?: boolean
  privileged?: boolean
}

function field(kind: FieldKind, schema: TSchema, options: FieldOptions, extra: Partial<Field> = {}): Field {
  const hasDefault = options.default !== undefined
  return {
    kind,
    schema,
    required: options.required ?? (!options.nullable && !hasDefault && !options.readOnly),
    nullable: options.nullable ?? false,
    default: options.default ?? (options.nullable ? null : undefined),
    readOnly: options.readOnly ?? false,
    filter: options.filter,
    sort: options.sort ?? false,
    search: options.search ?? false,
    unique: options.unique ?? false,
    defaultToCaller: options.defaultToCaller ?? false,
    privileged: options.privileged ?? false,
    ...extra,
  }
}

export const text = (options: FieldOptions & { max?: number; min?: number; format?: string } = {}) =>
  field(
    'text',
    Type.String({ minLength: options.min ?? 1, maxLength: options.max ?? 200, format: options.format }),
    options,
  )

export const integer = (options: FieldOptions & { min?: number; max?: number } = {}) =>
  field(
    'integer',
    Type.Integer({ minimum: options.min ?? 0, maximum: options.max ?? Number.MAX_SAFE_INTEGER }),
    options,
  )

export const boolean = (options: FieldOptions = {}) => field('boolean', Type.Boolean(), options)

export const enumeration = <const V extends readonly string[]>(values: V, options: FieldOptions = {}) =>
  field('enum', Type.Union(values.map((v) => Type.Literal(v))), options, { values })

export const reference = (collection: string, prefix: string, options: FieldOptions = {}) =>
  field('reference', Type.String({ pattern: `^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$` }), options, {
    references: collection,
  })

export const json = (options: FieldOptions = {}) => field('json', Type.Unknown(), options)

/** A list of strings, stored as JSON (a webhook endpoint's `eventTypes`). */
export const list = (options: FieldOptions & { maxItems?: number; maxLength?: number } = {}) =>
  field(
    'json',
    Type.Array(Type.String({ minLength: 1, maxLength: options.maxLength ?? 100 }), {
      maxItems: options.maxItems ?? 100,
      uniqueItems: true,
    }),
    options,
  )

export const timestamp = (options: FieldOptions = {}) =>
  field('timestamp', Type.String({ format: 'date-time' }), options)
