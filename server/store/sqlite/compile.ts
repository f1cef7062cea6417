import { stableOrder } from '../../../shared/query/stable-order.ts'
import type { Condition, SortKey } from '../../../shared/query/types.ts'
import type { Resource } from '../../../shared/resources/index.ts'
import { columnOf, toColumn } from './columns.ts'

export type SqlValue = string | number | null
export interface Sql {
  text: string
  params: SqlValue[]
}

const OPERATORS = { eq: '=', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=', like: 'LIKE' } as const

/** The column of a field or system field; throws on anything not declared (the allow-list). */
export function columnFor(resource: Resource, field: string): string {
  if (field === 'id' || field === 'createdAt' || field === 'updatedAt') return columnOf(field)
  if (!Object.hasOwn(resource.fields, field))
    throw new Error(`field ${field} is not declared on ${resource.name}`)
  return columnOf(field)
}

/** The functions a condition may apply to a column (the allow-list; see FieldFunction). */
const FUNCTIONS = new Set(['lower', 'upper', 'length'])

function value(resource: Resource, field: string, raw: unknown): SqlValue {
  const declared = resource.fields[field]
  // length() compares a number with a text column: the value is not the column's type.
  if (typeof raw === 'number') return raw
  return declared ? toColumn(declared, raw) : (raw as SqlValue)
}

/** Compiles a condition tree to a parameterized SQL expression; values never enter the text. */
export function compileCondition(resource: Resource, condition: Condition, params: SqlValue[]): string {
  switch (condition.kind) {
    case 'and':
    case 'or': {
      if (condition.conditions.length === 0) return condition.kind === 'and' ? '1' : '0'
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
        if (values.length === 0) return '0'
        for (const v of values) params.push(value(resource, condition.field, v))
        return `${column} IN (${values.map(() => '?').join(', ')})`
      }
      if (condition.value === null)
        return condition.op === 'ne' ? `${column} IS NOT NULL` : `${column} IS NULL`
      params.push(value(resource, condition.field, condition.value))
      return condition.op === 'like'
        ? `${column} LIKE ? ESCAPE '\\'`
        : `${column} ${OPERATORS[condition.op]} ?`
    }
  }
}

/** ORDER BY for the sort keys, always ending with the id so that pages are stable. */
export function orderBy(resource: Resource, sort: SortKey[]): { keys: SortKey[]; text: string } {
  const keys = stableOrder(sort)
  return {
    keys,
    text: keys.map((k) => `${columnFor(resource, k.field)} ${k.descending ? 'DESC' : 'ASC'}`).join(', '),
  }
}

/**
 * Keyset condition: rows strictly after `values` in the order of `keys`. One row-value comparison
 * when every key runs the same way (served by the index), the expanded OR form otherwise.
 */
export function afterKeys(
  resource: Resource,
  keys: SortKey[],
  values: SqlValue[],
  params: SqlValue[],
): string {
  const columns = keys.map((k) => columnFor(resource, k.field))
  if (keys.every((k) => k.descending === keys[0]!.descending)) {
    params.push(...values)
    return `(${columns.join(', ')}) ${keys[0]!.descending ? '<' : '>'} (${columns.map(() => '?').join(', ')})`
  }
  const alternatives: string[] = []
  for (let i = 0; i < keys.length; i++) {
    const parts: string[] = []
    for (let j = 0; j < i; j++) {
      parts.push(`${columns[j]} = ?`)
      params.push(values[j]!)
    }
    parts.push(`${columns[i]} ${keys[i]!.descending ? '<' : '>'} ?`)
    params.push(values[i]!)
    alternatives.push(`(${parts.join(' AND ')})`)
  }
  return `(${alternatives.join(' OR ')})`
}

/** Most words of a search that reach the FTS5 index. */
export const MAX_SEARCH_TERMS = 12

/**
 * An FTS5 MATCH string from free text: each word quoted (so FTS5 syntax in the text is inert),
 * all required, the last one as a prefix so that `wid` finds `widget`. Null when no word is left.
 */
export function ftsMatch(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, MAX_SEARCH_TERMS)
  if (!words || words.length === 0) return null
  return words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' ')
}

/** Rows whose searchable fields match; the FTS table shares the rowid of its content table. */
export function searchCondition(table: string, match: string, params: SqlValue[]): string {
  params.push(match)
  return `rowid IN (SELECT rowid FROM ${table}_fts WHERE ${table}_fts MATCH ?)`
}
