import { type TSchema, Type } from '@sinclair/typebox'
import '../formats.ts'

/** How a field is stored and converted between JSON and SQLite. */
export type FieldKind = 'text' | 'integer' | 'boolean' | 'enum' | 'reference' | 'json' | 'timestamp'

/** A field's type as a schema file names it: the kinds, and `list` (a list of strings, stored as JSON). */
export type FieldType = FieldKind | 'list'

/**
 * A field as a schema file declares it (docs/schema.md): its type, the type's limits and every
 * option, each present only when given. Every field keeps the declaration it was made from, so
 * the schema in force can be printed, recorded in the database and compared with the next one.
 */
export interface FieldDeclaration extends FieldOptions {
  type: FieldType
  /** text: shortest and longest length; integer: smallest and largest value. */
  min?: number
  max?: number
  /** text: `email`, `uri`, `currency` (ISO 4217) or `country` (ISO 3166-1 alpha-2). */
  format?: string
  /** enum: the values, in order. */
  values?: readonly string[]
  /** reference: the collection whose record this field points at. */
  to?: string
  /** list: most items, longest item. */
  maxItems?: number
  maxLength?: number
  /** The field's name in the previous schema, whose values it keeps. */
  renamedFrom?: string
}

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
  /**
   * An integer amount whose currency is this other field: in v2 the two are one money object,
   * `{"value": 1200, "currency": "EUR"}` (server/versions/money.ts).
   */
  currencyField?: string
  /** The declaration it was made from. */
  declaration: FieldDeclaration
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
  currencyField?: string
  description?: string
  renamedFrom?: string
}

/** The declaration's own keys, in a stable order, each only when given. */
function declared(type: FieldType, limits: Omit<FieldDeclaration, 'type'>): FieldDeclaration {
  const out: FieldDeclaration = { type }
  for (const [key, value] of Object.entries(limits))
    if (value !== undefined) Object.assign(out, { [key]: value })
  return out
}

function field(
  kind: FieldKind,
  schema: TSchema,
  options: FieldOptions,
  declaration: FieldDeclaration,
  extra: Partial<Field> = {},
): Field {
  const hasDefault = options.default !== undefined
  return {
    kind,
    schema: options.description ? { ...schema, description: options.description } : schema,
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
    currencyField: options.currencyField,
    declaration,
    ...extra,
  }
}

export const text = (options: FieldOptions & { max?: number; min?: number; format?: string } = {}) =>
  field(
    'text',
    Type.String({ minLength: options.min ?? 1, maxLength: options.max ?? 200, format: options.format }),
    options,
    declared('text', options),
  )

export const integer = (options: FieldOptions & { min?: number; max?: number } = {}) =>
  field(
    'integer',
    Type.Integer({ minimum: options.min ?? 0, maximum: options.max ?? Number.MAX_SAFE_INTEGER }),
    options,
    declared('integer', options),
  )

export const boolean = (options: FieldOptions = {}) =>
  field('boolean', Type.Boolean(), options, declared('boolean', options))

export const enumeration = <const V extends readonly string[]>(values: V, options: FieldOptions = {}) =>
  field(
    'enum',
    Type.Union(values.map((v) => Type.Literal(v))),
    options,
    declared('enum', { values, ...options }),
    {
      values,
    },
  )

/** A reference to a record of `collection`, whose ids start with `prefix`. */
export const reference = (collection: string, prefix: string, options: FieldOptions = {}) =>
  field(
    'reference',
    Type.String({ pattern: `^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$` }),
    options,
    declared('reference', { to: collection, ...options }),
    { references: collection },
  )

export const json = (options: FieldOptions = {}) =>
  field('json', Type.Unknown(), options, declared('json', options))

/** A list of strings, stored as JSON (a webhook endpoint's `eventTypes`). */
export const list = (options: FieldOptions & { maxItems?: number; maxLength?: number } = {}) =>
  field(
    'json',
    Type.Array(Type.String({ minLength: 1, maxLength: options.maxLength ?? 100 }), {
      maxItems: options.maxItems ?? 100,
      uniqueItems: true,
    }),
    options,
    declared('list', options),
  )

export const timestamp = (options: FieldOptions = {}) =>
  field('timestamp', Type.String({ format: 'date-time' }), options, declared('timestamp', options))
