import { type ApiError, invalid } from '../../shared/errors.ts'
import { DEFAULT_LIMIT, MAX_LIMIT, type Page } from '../../shared/query/types.ts'

/** A node of the SQL syntax tree, read from `unknown` with explicit checks. */
export type SqlNode = { type: string; range?: [number, number] } & Record<string, unknown>

export const isNode = (value: unknown): value is SqlNode =>
  typeof value === 'object' && value !== null && typeof (value as SqlNode).type === 'string'

/** 422 naming what is not allowed and where (0-based offset into the SQL text). */
export function sqlProblem(message: string, node?: unknown): ApiError {
  const at = isNode(node) && node.range ? ` at ${node.range[0]}` : ''
  return invalid(`The SQL query cannot be run: ${message}${at}.`, [
    { field: 'body', message: `${message}${at}` },
  ])
}

/** An operator as written: `=`, `AND`, `NOT LIKE`, `IS NOT`. */
export function operatorName(operator: unknown): string {
  if (typeof operator === 'string') return operator.toUpperCase()
  const words = Array.isArray(operator) ? operator : [operator]
  return words.map((w) => (isNode(w) && typeof w.name === 'string' ? w.name.toUpperCase() : '?')).join(' ')
}

/** How a node is named in messages: `a subquery`, `CASE`, `the function randomblob`. */
export function describe(node: unknown): string {
  if (!isNode(node)) return 'this'
  switch (node.type) {
    case 'select_stmt':
    case 'compound_select_stmt':
      return 'a subquery'
    case 'func_call':
      return `the function ${isNode(node.name) && typeof node.name.name === 'string' ? node.name.name.slice(0, 64) : '?'}`
    case 'paren_expr':
      return isNode(node.expr) && node.expr.type.endsWith('select_stmt')
        ? 'a subquery'
        : 'an expression in parentheses'
    case 'parameter':
      return 'a bound parameter'
    case 'case_expr':
      return 'CASE'
    case 'cast_expr':
      return 'CAST'
    case 'exists_expr':
      return 'EXISTS'
    case 'identifier':
    case 'member_expr':
      return 'a column'
    default:
      return node.type.endsWith('_literal') ? 'a literal' : `${node.type.replace(/_/g, ' ')}`
  }
}

const MAX_SQL_OFFSET = 100_000_000

/** The page of `LIMIT n [OFFSET m]`: cursor style without OFFSET, offset style with it. */
export function readLimit(clause?: SqlNode): Exclude<Page, { style: 'keyset' }> {
  if (!clause) return { style: 'cursor', limit: DEFAULT_LIMIT }
  const limit = wholeNumber(clause.count, 1, MAX_LIMIT, 'LIMIT')
  if (clause.offset === undefined) return { style: 'cursor', limit }
  return { style: 'offset', limit, offset: wholeNumber(clause.offset, 0, MAX_SQL_OFFSET, 'OFFSET') }
}

function wholeNumber(node: unknown, min: number, max: number, what: string): number {
  const value = isNode(node) && node.type === 'number_literal' ? node.value : undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw sqlProblem(`${what} takes a whole number from ${min} to ${max}`, node)
  return value
}

/**
 * An ORDER BY item as a sort specification (a bare expression is one with no direction); `takes`
 * says what the clause takes, for the error. NULLS FIRST and LAST are refused: null's place is fixed.
 */
export function sortSpecification(entry: unknown, takes: string): SqlNode {
  const item =
    isNode(entry) && entry.type !== 'sort_specification' ? { type: 'sort_specification', expr: entry } : entry
  if (!isNode(item) || item.type !== 'sort_specification') throw sqlProblem(`ORDER BY takes ${takes}`, item)
  if (item.nullHandlingKw) throw sqlProblem('NULLS FIRST and NULLS LAST are not allowed', item)
  return item
}

/** `a AND b` (or OR) as one condition of that kind, nested ones of the same kind flattened into it. */
export function joined<C extends { kind: string }>(
  op: 'AND' | 'OR',
  sides: unknown[],
  read: (side: unknown) => C,
): { kind: 'and' | 'or'; conditions: C[] } {
  const kind = op === 'AND' ? 'and' : 'or'
  const conditions: C[] = []
  for (const side of sides) {
    const part = read(side)
    // A condition of kind and/or holds its parts in `conditions` (Condition and HavingCondition alike).
    if (part.kind === kind) conditions.push(...(part as unknown as { conditions: C[] }).conditions)
    else conditions.push(part)
  }
  return { kind, conditions }
}

/** The comparisons a SQL body may write, WHERE and HAVING alike. */
type SqlComparison = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'

/** A SQL body's comparison operators (the parser's spelling) as the internal query's. */
export const SQL_COMPARISONS: Readonly<Record<string, SqlComparison>> = {
  '=': 'eq',
  '==': 'eq',
  '!=': 'ne',
  '<>': 'ne',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
}

/** Each comparison seen from its other side: `5 < amount` is `amount > 5`. */
export const MIRRORED: Readonly<Record<SqlComparison, SqlComparison>> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'gt',
  lte: 'gte',
  gt: 'lt',
  gte: 'lte',
}
