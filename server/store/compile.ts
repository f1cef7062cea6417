import { stableOrder } from '../../shared/query/stable-order.ts'
import type { Condition, SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { columnOf, toColumn } from './columns.ts'
import type { Dialect, Params, SqlValue } from './dialect.ts'

/**
 * SQL from the internal query, for every backend: the dialect (`params.dialect`) writes what
 * differs. Values never enter the text; columns come only from the declarations (the allow-list).
 */

const OPERATORS = { eq: '=', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const

/** The column of a field or system field; throws on anything not declared (the allow-list). */
export function columnFor(resource: Resource, field: string): string {
  if (field === 'id' || field === 'createdAt' || field === 'updatedAt') return columnOf(field)
  if (!Object.hasOwn(resource.fields, field))
    throw new Error(`field ${field} is not declared on ${resource.name}`)
  return columnOf(field)
}

/** The functions a condition may apply to a column (the allow-list; see FieldFunction). */
const FUNCTIONS = new Set(['lower', 'upper', 'length'])

/** A value as the column of `field` holds it in this dialect. */
function value(resource: Resource, field: string, raw: unknown, dialect: Dialect): SqlValue | boolean {
  const declared = Object.hasOwn(resource.fields, field) ? resource.fields[field] : undefined
  // Booleans travel as 0 and 1 (request values, cursors); a native boolean column wants true/false.
  if (declared?.kind === 'boolean' && dialect.nativeBooleans && raw !== null) return raw === true || raw === 1
  // length() compares a number with a text column: the value is not the column's type.
  if (typeof raw === 'number') return raw
  return declared ? toColumn(declared, raw) : (raw as SqlValue)
}

/** A cursor's sort value (booleans as 0 and 1) as the column holds it in this dialect. */
function sortValue(resource: Resource, field: string, raw: SqlValue, dialect: Dialect): SqlValue | boolean {
  const declared = Object.hasOwn(resource.fields, field) ? resource.fields[field] : undefined
  return declared?.kind === 'boolean' && dialect.nativeBooleans && raw !== null ? raw === 1 : raw
}

/** Compiles a condition tree to a parameterized SQL expression. */
export function compileCondition(resource: Resource, condition: Condition, params: Params): string {
  const { dialect } = params
  switch (condition.kind) {
    case 'and':
    case 'or': {
      if (condition.conditions.length === 0) return condition.kind === 'and' ? dialect.always : dialect.never
      const parts = condition.conditions.map((c) => compileCondition(resource, c, params))
      return `(${parts.join(condition.kind === 'and' ? ' AND ' : ' OR ')})`
    }
    case 'not':
      return `(NOT ${compileCondition(resource, condition.condition, params)})`
    case 'compare': {
      let column = columnFor(resource, condition.field)
      if (condition.fn !== undefined) {
        if (!FUNCTIONS.has(condition.fn)) throw new Error(`function ${condition.fn} is not allowed`)
        column = `${condition.fn}(${column})`
      }
      if (condition.op === 'in') {
        const values = condition.value as (string | number)[]
        if (values.length === 0) return dialect.never
        return dialect.oneOf(
          column,
          values.map((v) => value(resource, condition.field, v, dialect) as SqlValue),
          params,
        )
      }
      if (condition.value === null)
        return condition.op === 'ne' ? `${column} IS NOT NULL` : `${column} IS NULL`
      const bound = value(resource, condition.field, condition.value, dialect)
      if (condition.op === 'like') return dialect.like(column, bound, params)
      return `${column} ${OPERATORS[condition.op]} ${params.add(bound)}`
    }
  }
}

/** The conditions of a page or a count, organization first. */
export function whereClause(
  resource: Resource,
  orgId: string,
  where: Condition[],
  search: string | undefined,
  params: Params,
): string {
  const parts = [`org_id = ${params.add(orgId)}`, ...where.map((c) => compileCondition(resource, c, params))]
  if (search !== undefined)
    parts.push(params.dialect.search(resource.table, search, params) ?? params.dialect.never)
  return parts.join(' AND ')
}

/** Whether a sort key's column may hold null (a system field never does). */
const mayBeNull = (resource: Resource, field: string) =>
  Object.hasOwn(resource.fields, field) && resource.fields[field]!.nullable

/**
 * ORDER BY for the sort keys, always ending with the id so that pages are stable. Null is the
 * greatest value on every backend (PostgreSQL's order; SQLite's is the reverse): last ascending,
 * first descending.
 */
export function orderBy(resource: Resource, sort: SortKey[]): { keys: SortKey[]; text: string } {
  const keys = stableOrder(sort)
  const key = (k: SortKey) => {
    const nulls = mayBeNull(resource, k.field) ? (k.descending ? ' NULLS FIRST' : ' NULLS LAST') : ''
    return `${columnFor(resource, k.field)} ${k.descending ? 'DESC' : 'ASC'}${nulls}`
  }
  return { keys, text: keys.map(key).join(', ') }
}

/**
 * Keyset condition: rows strictly after `values` in the order of `keys`. One row-value comparison
 * when every key runs the same way (served by the index), the expanded OR form otherwise.
 */
export function afterKeys(resource: Resource, keys: SortKey[], values: SqlValue[], params: Params): string {
  return keysetAfter(
    keys.map((k) => ({
      column: columnFor(resource, k.field),
      descending: k.descending,
      nullable: mayBeNull(resource, k.field),
    })),
    values,
    (i) => params.add(sortValue(resource, keys[i]!.field, values[i]!, params.dialect)),
    params.dialect,
  )
}

/** One key of a keyset order: a column (or alias), its direction, whether it may hold null. */
export interface OrderedColumn {
  column: string
  descending: boolean
  nullable: boolean
}

/**
 * Rows strictly after `values` in the order of `keys` (`bind(i)` binds the i-th value), null the
 * greatest value as `orderBy` sorts it: lists' cursors and aggregates' (compile-aggregate.ts).
 */
export function keysetAfter(
  keys: OrderedColumn[],
  values: SqlValue[],
  bind: (i: number) => string,
  dialect: Dialect,
): string {
  const columns = keys.map((k) => k.column)
  if (keys.every((k) => k.descending === keys[0]!.descending) && !keys.some((k) => k.nullable)) {
    const bound = keys.map((_, i) => bind(i))
    return `(${columns.join(', ')}) ${keys[0]!.descending ? '<' : '>'} (${bound.join(', ')})`
  }
  // A comparison with null is unknown: where a column may hold null, "after" and "equal" say where
  // null stands (the greatest value, as orderBy sorts it).
  const equal = (j: number) => (values[j] === null ? `${columns[j]} IS NULL` : `${columns[j]} = ${bind(j)}`)
  const after = (i: number) => {
    const descending = keys[i]!.descending
    if (!keys[i]!.nullable) return `${columns[i]} ${descending ? '<' : '>'} ${bind(i)}`
    if (values[i] === null) return descending ? `${columns[i]} IS NOT NULL` : dialect.never
    return descending ? `${columns[i]} < ${bind(i)}` : `(${columns[i]} > ${bind(i)} OR ${columns[i]} IS NULL)`
  }
  const alternatives: string[] = []
  for (let i = 0; i < keys.length; i++) {
    const parts: string[] = []
    for (let j = 0; j < i; j++) parts.push(equal(j))
    parts.push(after(i))
    alternatives.push(`(${parts.join(' AND ')})`)
  }
  return `(${alternatives.join(' OR ')})`
}
