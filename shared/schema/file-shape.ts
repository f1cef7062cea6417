/**
 * The shape of a schema file (docs/schema.md) as one TypeBox schema: printed by `api-server schema
 * json-schema` for editors (and published as docs/api-schema.schema.json), and the first check of
 * every file read, whose TypeBox errors become problem lines naming their place in the file.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import type { FieldType } from '../resources/fields.ts'
import { placeOf } from './file-place.ts'

const comment = { $comment: Type.Optional(Type.String({ description: 'A note for people; ignored.' })) }
const flag = (description: string) => Type.Optional(Type.Boolean({ description }))
const oneOf = (values: readonly string[], description: string) =>
  Type.Optional(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      { description },
    ),
  )
const count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }))
const name = (description: string) => Type.String({ minLength: 1, description })

/** Options every field takes. */
const COMMON = {
  ...comment,
  description: Type.Optional(
    Type.String({ description: "What the field holds (OpenAPI's and GraphQL's description)." }),
  ),
  nullable: flag('May be null; PUT resets an omitted nullable field to null.'),
  default: Type.Optional(
    Type.Unknown({ description: 'The value on create (and after PUT) when the field is left out.' }),
  ),
  required: flag('Must be sent on create and PUT (default: true unless nullable, defaulted or read-only).'),
  readOnly: flag('Set by the service, never by a client.'),
  renamedFrom: Type.Optional(name("The field's name in the previous schema, whose values it keeps.")),
}
const SORT = { sort: flag('Lists sort on it (sort=field, sort=-field).') }
const UNIQUE = { unique: flag('Unique within the organization.') }
const EQUALITY = { filter: oneOf(['eq'], 'Lists filter on it: field=value.') }

/** The fields of each type, with the options that type takes and no other. */
const FIELD_SHAPES: Record<FieldType, TObject> = {
  text: Type.Object(
    {
      type: Type.Literal('text'),
      ...COMMON,
      min: count('Shortest length (default 1).'),
      max: count('Longest length (default 200).'),
      format: oneOf(
        ['email', 'uri', 'currency', 'country'],
        'currency: ISO 4217; country: ISO 3166-1 alpha-2.',
      ),
      ...EQUALITY,
      ...SORT,
      search: flag('Full-text search (q=) looks in it.'),
      ...UNIQUE,
    },
    { additionalProperties: false },
  ),
  integer: Type.Object(
    {
      type: Type.Literal('integer'),
      ...COMMON,
      min: Type.Optional(Type.Integer({ description: 'Smallest value (default 0).' })),
      max: Type.Optional(Type.Integer({ description: 'Largest value (default 2^53 - 1).' })),
      filter: oneOf(['eq', 'range', 'eq+range'], 'Lists filter on it: field=, field_gte=, field_lte=.'),
      ...SORT,
      ...UNIQUE,
      currencyField: Type.Optional(
        name(
          'An amount in minor units whose currency is this text field (format currency): one money object in v2.',
        ),
      ),
    },
    { additionalProperties: false },
  ),
  boolean: Type.Object(
    { type: Type.Literal('boolean'), ...COMMON, ...EQUALITY, ...SORT },
    { additionalProperties: false },
  ),
  enum: Type.Object(
    {
      type: Type.Literal('enum'),
      ...COMMON,
      values: Type.Array(Type.String(), {
        minItems: 1,
        uniqueItems: true,
        description: 'The values, in order.',
      }),
      ...EQUALITY,
      ...SORT,
    },
    { additionalProperties: false },
  ),
  reference: Type.Object(
    {
      type: Type.Literal('reference'),
      ...COMMON,
      to: name('The collection whose record it names (declared, or users), in the same organization.'),
      ...EQUALITY,
      ...SORT,
      ...UNIQUE,
      defaultToCaller: flag('To users: left out on create, it is the user the token was issued for.'),
    },
    { additionalProperties: false },
  ),
  timestamp: Type.Object(
    {
      type: Type.Literal('timestamp'),
      ...COMMON,
      filter: oneOf(['eq', 'range', 'eq+range'], 'Lists filter on it: field=, field_gte=, field_lte=.'),
      ...SORT,
      ...UNIQUE,
    },
    { additionalProperties: false },
  ),
  json: Type.Object({ type: Type.Literal('json'), ...COMMON }, { additionalProperties: false }),
  list: Type.Object(
    {
      type: Type.Literal('list'),
      ...COMMON,
      maxItems: count('Most items (default 100).'),
      maxLength: count('Longest item (default 100).'),
    },
    { additionalProperties: false },
  ),
}

/** Every field type, in the order docs/schema.md lists them. */
const FIELD_TYPES = Object.keys(FIELD_SHAPES) as FieldType[]

/** An object of named entries of `entry`, which may also carry a `$comment`. */
const named = (entry: TSchema, description: string) =>
  Type.Object(comment, { additionalProperties: entry, description })

const ACTION = Type.Object(
  {
    ...comment,
    field: name('The enum or boolean field that holds the state.'),
    from: Type.Array(Type.Union([Type.String(), Type.Boolean()]), {
      minItems: 1,
      description: 'The states it may start from.',
    }),
    to: Type.Union([Type.String(), Type.Boolean()], { description: 'The state it leaves the record in.' }),
    past: name('The past tense, the event type: book.lent.'),
    summary: name('What it does, in a few words.'),
  },
  { additionalProperties: false },
)

const resourceShape = (field: TSchema) =>
  Type.Object(
    {
      ...comment,
      singular: name('The singular, camelCase: GraphQL types and event types derive from it.'),
      prefix: name('The id prefix, 2-4 lowercase letters: bok_01jd...'),
      description: Type.Optional(Type.String({ description: 'What the collection holds.' })),
      parent: Type.Optional(
        Type.Object(
          {
            ...comment,
            collection: name('The collection it is nested under (declared, or users).'),
            field: name("The field that carries the parent's id (read-only; added when not declared)."),
          },
          { additionalProperties: false },
        ),
      ),
      fields: named(field, 'The fields, by camelCase name.'),
      actions: Type.Optional(named(ACTION, 'State changes, POST /{collection}/{id}/{action}.')),
      renamedFrom: Type.Optional(
        name("The collection's name in the previous schema, whose records it keeps."),
      ),
    },
    { additionalProperties: false },
  )

const fileShape = (field: TSchema) =>
  Type.Object(
    {
      $schema: Type.Optional(Type.String({ description: 'Where editors find this JSON Schema.' })),
      ...comment,
      resources: named(
        resourceShape(field),
        'The collections, by name (lowercase plural, words joined by -).',
      ),
    },
    { additionalProperties: false },
  )

/** The JSON Schema of schema files, for editors (`api-server schema json-schema`). */
export function schemaFileJsonSchema(): Record<string, unknown> {
  const shape = fileShape(Type.Union(Object.values(FIELD_SHAPES)))
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'api-server schema file',
    description: 'The collections an api-server serves (docs/schema.md).',
    // A plain copy: TypeBox marks its schemas with symbols, which JSON leaves out anyway.
    ...JSON.parse(JSON.stringify(shape)),
  }
}

/** The file checked with each field as anything: a field's shape depends on its type, checked next. */
const SKELETON = fileShape(Type.Unknown())

/** One problem line for a TypeBox error, naming its place from `at` down. */
function problemOf(error: ValueError, at: string): string {
  const place = placeOf(at + error.path)
  const anyOf = (error.schema as { anyOf?: { const?: unknown }[] }).anyOf
  if (error.message === 'Unexpected property') return `${place}: unknown key`
  if (error.message === 'Expected required property') return `${place}: required`
  const only = (error.schema as { const?: unknown }).const
  if (only !== undefined) return `${place}: must be ${JSON.stringify(only)}`
  if (anyOf?.every((s) => s.const !== undefined))
    return `${place}: must be one of ${anyOf.map((s) => JSON.stringify(s.const)).join(', ')}`
  return `${place}: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`
}

/** The first problem at each place, in the order TypeBox finds them. */
function problemsOf(schema: TSchema, value: unknown, at = ''): string[] {
  const seen = new Map<string, string>()
  for (const error of Value.Errors(schema, value)) {
    // A union of literals reports each literal too; the union's own line says it all.
    if (!seen.has(error.path)) seen.set(error.path, problemOf(error, at))
  }
  return [...seen.values()]
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A field's problems: its type, then the options that type takes. */
function fieldProblems(at: string, field: unknown): string[] {
  if (!isObject(field)) return [`${placeOf(at)}: expected object`]
  const type = field.type
  if (type === undefined) return [`${placeOf(`${at}/type`)}: required`]
  if (typeof type !== 'string' || !FIELD_TYPES.includes(type as FieldType))
    return [
      `${placeOf(`${at}/type`)}: unknown type ${JSON.stringify(type)} (one of ${FIELD_TYPES.join(', ')})`,
    ]
  const problems = problemsOf(FIELD_SHAPES[type as FieldType], field, at)
  // "unknown key" alone does not say what the type does take.
  const takes = Object.keys(FIELD_SHAPES[type as FieldType].properties).filter((k) => k !== '$comment')
  return problems.map((line) =>
    line.endsWith(': unknown key') ? `${line} (${type} takes ${takes.join(', ')})` : line,
  )
}

/** Every problem with the shape of a parsed schema file; none when it has the shape of one. */
export function shapeProblems(file: unknown): string[] {
  const problems = problemsOf(SKELETON, file)
  if (!isObject(file) || !isObject(file.resources)) return problems
  for (const [collection, resource] of Object.entries(file.resources)) {
    if (collection === '$comment' || !isObject(resource) || !isObject(resource.fields)) continue
    for (const [field, declared] of Object.entries(resource.fields)) {
      if (field === '$comment') continue
      problems.push(
        ...fieldProblems(
          `/resources/${pointerSegment(collection)}/fields/${pointerSegment(field)}`,
          declared,
        ),
      )
    }
  }
  return problems
}

/** A key as a JSON Pointer segment (RFC 6901 §4). */
const pointerSegment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')
