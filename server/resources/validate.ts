import { Value } from '@sinclair/typebox/value'
import { type ErrorDetail, validationError } from '../../shared/errors.ts'
import { FORMAT_MESSAGES } from '../../shared/formats.ts'
import { isId } from '../../shared/ids.ts'
import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { withArticle } from '../../shared/words.ts'

export type WriteMode = 'create' | 'replace' | 'patch'

/** Why `value` is not acceptable for `field`, or null when it is. Limits come from the field's schema. */
export function checkValue(served: Schema, field: Field, value: unknown): string | null {
  if (value === null) return field.nullable ? null : 'must not be null'
  const schema = field.schema as Record<string, unknown>
  switch (field.kind) {
    case 'text': {
      if (typeof value !== 'string') return 'must be a string'
      const min = (schema.minLength as number) ?? 0
      const max = schema.maxLength as number
      if (value.length < min) return min === 1 ? 'must not be empty' : `must be at least ${min} characters`
      if (value.length > max) return `must be at most ${max} characters`
      // The same text on both backends: PostgreSQL's text cannot hold U+0000.
      if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)'
      const format = schema.format as string | undefined
      if (format && !Value.Check(field.schema, value))
        return FORMAT_MESSAGES[format] ?? `must match format ${format}`
      return null
    }
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer'
      if (value < (schema.minimum as number)) return `must be at least ${schema.minimum}`
      if (value > (schema.maximum as number)) return `must be at most ${schema.maximum}`
      return null
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false'
    case 'enum':
      return typeof value === 'string' && field.values!.includes(value)
        ? null
        : `must be one of ${field.values!.join(', ')}`
    case 'reference': {
      const target = served.byName(field.references!)!
      return isId(value, target.prefix)
        ? null
        : `must be ${withArticle(target.singular)} id (${target.prefix}_…)`
    }
    case 'timestamp':
      if (typeof value !== 'string') return 'must be a string'
      return Value.Check(field.schema, value) ? null : FORMAT_MESSAGES['date-time']!
    default:
      return Value.Check(field.schema, value) ? null : 'is not valid'
  }
}

/**
 * Checks a request body against the declaration and returns the values to store. Unknown and
 * read-only fields are rejected, never ignored; `replace` resets omitted fields to null or their
 * default (contract: PUT is a full replacement).
 */
/** An RFC 3339 date-time (checked) as the UTC instant it names, to the millisecond. */
const utc = (value: string) => new Date(value).toISOString()

export function validateBody(
  schema: Schema,
  resource: Resource,
  body: unknown,
  mode: WriteMode,
): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ field: 'body', message: 'must be a JSON object' }])
  }
  const input = body as Record<string, unknown>
  const details: ErrorDetail[] = []
  const values: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(input)) {
    // Own keys only: a body key such as `constructor` or `__proto__` must not find Object.prototype's members.
    const field = Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined
    if (name === 'id' || name === 'createdAt' || name === 'updatedAt' || field?.readOnly) {
      details.push({ field: name, message: 'is read-only' })
    } else if (!field) {
      details.push({ field: name, message: 'is not a field of this resource' })
    } else {
      const problem = checkValue(schema, field, value)
      if (problem) details.push({ field: name, message: problem })
      // A timestamp is kept in UTC (`Z`), as createdAt is: its sort, filters and day buckets
      // compare the text, which an offset (`+02:00`) would put in another order and day.
      else values[name] = field.kind === 'timestamp' && typeof value === 'string' ? utc(value) : value
    }
  }
  if (mode !== 'patch') {
    for (const name of resource.writableFields) {
      if (name in input) continue
      const field = resource.fields[name]!
      if (field.required) details.push({ field: name, message: 'is required' })
      else values[name] = structuredClone(field.default)
    }
  }
  // A read-only field is the service's to change (an action's state): a record starts at its default.
  if (mode === 'create')
    for (const [name, field] of Object.entries(resource.fields))
      if (field.readOnly && field.default !== undefined && field.default !== null)
        values[name] = structuredClone(field.default)
  if (details.length > 0) throw validationError(details)
  return values
}
