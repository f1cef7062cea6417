/**
 * What the planner says of a field in the one line of a change (`add field books.subtitle (text,
 * nullable)`), and which of a field's declared options change its storage, its limits or nothing
 * the database holds.
 */

import type { FieldDeclaration } from '../../shared/resources/fields.ts'
import type { Field } from '../../shared/resources/index.ts'

/** `text, nullable`, `integer, default 0`, `reference to authors, required, no default`. */
export function shapeOf(field: Field): string {
  const d = field.declaration
  const type = d.type === 'reference' ? `reference to ${d.to}` : d.type
  const how =
    field.default !== undefined && field.default !== null
      ? `default ${JSON.stringify(field.default)}`
      : field.nullable
        ? 'nullable'
        : 'required, no default'
  return `${type}, ${how}`
}

/** The limits a field's values must keep, with the defaults the field builders give (shared/resources/fields.ts). */
export function limitsOf(d: FieldDeclaration): Record<string, number> {
  if (d.type === 'text') return { min: d.min ?? 1, max: d.max ?? 200 }
  if (d.type === 'integer') return { min: d.min ?? 0, max: d.max ?? Number.MAX_SAFE_INTEGER }
  if (d.type === 'list') return { maxItems: d.maxItems ?? 100, maxLength: d.maxLength ?? 100 }
  return {}
}

/** Options that change what a client may send or sees, and nothing stored. */
export const API_ONLY_KEYS = [
  'default',
  'required',
  'readOnly',
  'description',
  'currencyField',
  'defaultToCaller',
  'privileged',
] as const

/** Declared options compared for equality (arrays and objects by their JSON). */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** A value in a description: numbers and words as they are. */
export const shown = (value: unknown) =>
  value === Number.MAX_SAFE_INTEGER ? 'none' : typeof value === 'string' ? value : JSON.stringify(value)
