import { snakeCase } from '../../shared/resources/define.ts'
import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Dialect, SqlValue } from './dialect.ts'

const cache = new Map<string, string>()

/** The SQLite column behind a JSON field (`unitPrice` -> `unit_price`). */
export function columnOf(field: string): string {
  let column = cache.get(field)
  if (column === undefined) {
    column = snakeCase(field)
    cache.set(field, column)
  }
  return column
}

type Row = Record<string, unknown>

/** Converts what SQLite stores to the JSON value. */
export function fromColumn(field: Field, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (field.kind === 'boolean') return value === 1 || value === true
  // PostgreSQL's bigint arrives as a string (Bun.sql); the field's values are safe integers.
  if (field.kind === 'integer' && typeof value === 'string') return Number(value)
  if (field.kind === 'json') return JSON.parse(value as string)
  return value
}

/** Converts a JSON value to what SQLite stores. */
export function toColumn(field: Field, value: unknown): string | number | null {
  if (value === null || value === undefined) return null
  if (field.kind === 'boolean') return value ? 1 : 0
  if (field.kind === 'json') return JSON.stringify(value)
  return value as string | number
}

/** A JSON value as a statement binds it in `dialect`: booleans are true/false where the column is boolean. */
export function toColumnIn(dialect: Dialect, field: Field, value: unknown): SqlValue | boolean {
  const stored = toColumn(field, value)
  return field.kind === 'boolean' && dialect.nativeBooleans && stored !== null ? stored === 1 : stored
}

const layouts = new WeakMap<Resource, [string, string, Field][]>()

/** Per resource: each field's JSON name, column and declaration, worked out once (every read uses it). */
export function layoutOf(resource: Resource): [string, string, Field][] {
  let layout = layouts.get(resource)
  if (!layout) {
    layout = Object.entries(resource.fields).map(([name, field]) => [name, columnOf(name), field])
    layouts.set(resource, layout)
  }
  return layout
}

/**
 * The column list of a read of `fields` (and of `also`, what ordering needs), besides the id and the
 * timestamps every read has; every declared column when `fields` is
 * undefined. Never `*`: a replica still running the previous schema file keeps its statements
 * while another applies a change that adds columns, and PostgreSQL refuses to run a prepared
 * `SELECT *` whose result gained a column ("cached plan must not change result type").
 */
export function selectList(
  resource: Resource,
  fields: readonly string[] | undefined,
  also: readonly string[] = [],
): string {
  // Every field's list, the usual one (a read by id, a write's locked read), is worked out once.
  if (fields === undefined && also.length === 0) {
    let all = everyColumn.get(resource)
    if (all === undefined) {
      all = columnList(resource, Object.keys(resource.fields))
      everyColumn.set(resource, all)
    }
    return all
  }
  return columnList(resource, [...(fields ?? Object.keys(resource.fields)), ...also])
}

const everyColumn = new WeakMap<Resource, string>()

function columnList(resource: Resource, names: readonly string[]): string {
  const columns = new Set(['id', 'created_at', 'updated_at'])
  for (const name of names) {
    if (Object.hasOwn(resource.fields, name)) columns.add(columnOf(name))
    // A declared object (an event's `actor`) reads each of its members.
    for (const member of Object.values(resource.objects[name] ?? {})) columns.add(columnOf(member))
  }
  return [...columns].join(', ')
}

type Member = [key: string, column: string, field: Field]
type Step = [name: string, column: string, field: Field] | [name: string, members: Member[]]

const plans = new WeakMap<Resource, Step[]>()

/** The layout as a record shows it: a declared object (an event's `actor`) gathers its members. */
function planOf(resource: Resource): Step[] {
  let plan = plans.get(resource)
  if (!plan) {
    plan = resource.presented.map((name): Step => {
      const members = resource.objects[name]
      if (!members) return [name, columnOf(name), resource.fields[name]!]
      return [
        name,
        Object.entries(members).map(([key, f]): Member => [key, columnOf(f), resource.fields[f]!]),
      ]
    })
    plans.set(resource, plan)
  }
  return plan
}

/**
 * Builds the API representation of a row: camelCase fields in declaration order. A row read with a
 * column list (`selectList`) has only those fields.
 */
export function serializeRow(resource: Resource, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id }
  for (const step of planOf(resource)) {
    if (step.length === 3) {
      const value = row[step[1]]
      if (value !== undefined) out[step[0]] = fromColumn(step[2], value)
      continue
    }
    if (step[1].some(([, column]) => row[column] === undefined)) continue
    const values = step[1].map(([key, column, field]) => [key, fromColumn(field, row[column])] as const)
    // Null when every member is (an event appended before actors were recorded).
    out[step[0]] = values.every(([, value]) => value === null) ? null : Object.fromEntries(values)
  }
  out.createdAt = row.created_at
  out.updatedAt = row.updated_at
  return out
}
