import { isId } from '../ids.ts'
import type { Field, Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import { withArticle } from '../words.ts'

/** A field a query may name: a declared field or one of the system fields every record has. */
export interface QueryField {
  /** The JSON name (`createdAt`). */
  name: string
  kind: Field['kind']
  values?: readonly string[]
  references?: string
  nullable: boolean
}

const SYSTEM: Record<string, QueryField> = {
  id: { name: 'id', kind: 'text', nullable: false },
  createdAt: { name: 'createdAt', kind: 'timestamp', nullable: false },
  updatedAt: { name: 'updatedAt', kind: 'timestamp', nullable: false },
}

export const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
export const snakeName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** Looks a field up by its JSON (camelCase) or query (snake_case) name. */
export function queryField(resource: Pick<Resource, 'fields'>, name: string): QueryField | undefined {
  const camel = camelCase(name)
  // Own properties only: `constructor` or `toString` name no field.
  if (Object.hasOwn(SYSTEM, camel)) return SYSTEM[camel]
  const field = Object.hasOwn(resource.fields, camel) ? resource.fields[camel] : undefined
  if (!field || field.kind === 'json') return undefined
  return {
    name: camel,
    kind: field.kind,
    values: field.values,
    references: field.references,
    nullable: field.nullable,
  }
}

/** Fields a filter may name: declared filters and sort fields, and the system fields. */
export function filterableFields(resource: Resource): string[] {
  return [...new Set(['id', ...resource.filterable, ...resource.sortable])]
}

const INTEGER = /^-?\d{1,16}$/
// ISO 8601 date or date-time; a date alone means midnight UTC, a date-time without offset UTC too.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

// Date.parse rolls 2024-02-30 over to March 1st; a day the month does not have is refused instead.
function isCalendarDate(year: number, month: number, day: number): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return days !== undefined && day >= 1 && day <= days
}

export type FilterValue = string | number | boolean

/**
 * Turns a filter value from text (query string) or JSON (filter expressions, QUERY bodies) into
 * the typed value the field holds. Returns an error message instead when it cannot.
 */
export function coerceFilterValue(
  schema: Schema,
  field: QueryField,
  raw: unknown,
): { value: FilterValue } | { error: string } {
  switch (field.kind) {
    case 'integer': {
      if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { value: raw }
      if (typeof raw === 'string' && INTEGER.test(raw) && Number.isSafeInteger(Number(raw)))
        return { value: Number(raw) }
      return { error: 'must be a whole number' }
    }
    case 'boolean':
      if (raw === true || raw === 'true') return { value: true }
      if (raw === false || raw === 'false') return { value: false }
      return { error: 'must be true or false' }
    case 'timestamp': {
      const match = typeof raw === 'string' ? ISO.exec(raw) : null
      if (typeof raw !== 'string' || !match || !isCalendarDate(+match[1]!, +match[2]!, +match[3]!))
        return { error: 'must be an ISO 8601 date or date-time' }
      // Without an offset Date.parse would read the server's local time; the API means UTC.
      const time = Date.parse(raw.length === 10 ? `${raw}T00:00:00Z` : match[4] ? raw : `${raw}Z`)
      if (Number.isNaN(time)) return { error: 'must be an ISO 8601 date or date-time' }
      return { value: new Date(time).toISOString() }
    }
    case 'enum':
      if (typeof raw === 'string' && field.values!.includes(raw)) return { value: raw }
      return { error: `must be one of ${field.values!.join(', ')}` }
    case 'reference': {
      const target = schema.byName(field.references!)!
      if (isId(raw, target.prefix)) return { value: raw }
      return { error: `must be ${withArticle(target.singular)} id (${target.prefix}_…)` }
    }
    default:
      if (typeof raw !== 'string') return { error: 'must be a string' }
      if (raw.length > 500) return { error: 'must be at most 500 characters' }
      // No stored text holds one (writes refuse it; PostgreSQL's text cannot).
      if (raw.includes('\u0000')) return { error: 'must not contain the NUL character (U+0000)' }
      return { value: raw }
  }
}
