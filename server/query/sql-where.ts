import { coerceFilterValue, type QueryField } from '../../shared/query/fields.ts'
import {
  likePatternProblem,
  MAX_FILTER_COMPARISONS,
  MAX_FILTER_DEPTH,
  MAX_IN_VALUES,
} from '../../shared/query/filter-expression.ts'
import type { Comparison, Condition, FieldFunction } from '../../shared/query/types.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import {
  describe,
  isNode,
  joined,
  MIRRORED,
  operatorName,
  SQL_COMPARISONS,
  type SqlNode,
  sqlProblem,
} from './sql-nodes.ts'

const FUNCTIONS: readonly FieldFunction[] = ['lower', 'upper', 'length']
const TEXT_KINDS = new Set(['text', 'enum', 'reference', 'timestamp'])

/** A column operand: the field and the function applied to it, if any. */
interface ColumnRef {
  field: QueryField
  written: string
  fn?: FieldFunction
}

type Literal = { value: string | number | boolean | null }

/** Turns a WHERE expression into the internal condition tree, allowing only what is listed here. */
export class WhereTranslator {
  private comparisons = 0

  constructor(
    private readonly schema: Schema,
    private readonly column: (node: SqlNode) => { field: QueryField; written: string },
  ) {}

  condition(node: unknown, depth = 0): Condition {
    if (!isNode(node)) throw sqlProblem('this part of the WHERE clause is not allowed')
    if (depth > MAX_FILTER_DEPTH)
      throw sqlProblem(`conditions nest deeper than ${MAX_FILTER_DEPTH} levels`, node)
    switch (node.type) {
      case 'paren_expr':
        return this.condition(node.expr, depth + 1)
      case 'prefix_op_expr':
        if (operatorName(node.operator) !== 'NOT') break
        return { kind: 'not', condition: this.condition(node.expr, depth + 1) }
      case 'between_expr': {
        const negated = operatorName(node.betweenKw) === 'NOT BETWEEN'
        const ref = this.columnRef(node.left)
        const range: Condition = {
          kind: 'and',
          conditions: [
            this.compare(ref, 'gte', this.literal(node.begin), node.begin),
            this.compare(ref, 'lte', this.literal(node.end), node.end),
          ],
        }
        return negated ? { kind: 'not', condition: range } : range
      }
      case 'binary_expr':
        return this.binary(node, depth)
    }
    throw sqlProblem(`${describe(node)} is not allowed in WHERE`, node)
  }

  private binary(node: SqlNode, depth: number): Condition {
    const op = operatorName(node.operator)
    if (op === 'AND' || op === 'OR')
      return joined(op, [node.left, node.right], (side) => this.condition(side, depth))
    const comparison = SQL_COMPARISONS[op]
    if (comparison) {
      const leftIsColumn = !isLiteral(node.left)
      const ref = this.columnRef(leftIsColumn ? node.left : node.right)
      const other = leftIsColumn ? node.right : node.left
      const literal = this.literal(other)
      if (literal.value === null)
        throw sqlProblem(`'${op} NULL' is never true in SQL; write IS NULL or IS NOT NULL`, other)
      return this.compare(ref, leftIsColumn ? comparison : MIRRORED[comparison], literal, other)
    }
    if (op === 'IS' || op === 'IS NOT') {
      const ref = this.columnRef(node.left)
      if (!isNode(node.right) || node.right.type !== 'null_literal')
        throw sqlProblem(`${op} is allowed only with NULL`, node.right)
      this.count(node)
      return {
        kind: 'compare',
        field: ref.field.name,
        op: op === 'IS' ? 'eq' : 'ne',
        value: null,
        ...fnOf(ref),
      }
    }
    if (op === 'LIKE' || op === 'NOT LIKE') {
      const like = this.like(node)
      return op === 'LIKE' ? like : { kind: 'not', condition: like }
    }
    if (op === 'IN' || op === 'NOT IN') {
      const list = this.inList(node)
      return op === 'IN' ? list : { kind: 'not', condition: list }
    }
    throw sqlProblem(
      `the operator ${op} is not allowed (allowed: = != <> < <= > >= AND OR NOT IS [NOT] NULL [NOT] LIKE [NOT] IN [NOT] BETWEEN)`,
      node,
    )
  }

  private count(node: SqlNode) {
    this.comparisons += 1
    if (this.comparisons > MAX_FILTER_COMPARISONS)
      throw sqlProblem(`more than ${MAX_FILTER_COMPARISONS} comparisons`, node)
  }

  private columnRef(node: unknown): ColumnRef {
    if (isNode(node) && node.type === 'func_call') {
      const name = isNode(node.name) && typeof node.name.name === 'string' ? node.name.name.toLowerCase() : ''
      const fn = FUNCTIONS.find((f) => f === name)
      if (!fn)
        throw sqlProblem(
          ['count', 'sum', 'avg', 'min', 'max'].includes(name)
            ? `${name}() is not allowed in WHERE: conditions on aggregates go in HAVING`
            : `the function ${name.slice(0, 64) || '?'} is not allowed (allowed: ${FUNCTIONS.join(', ')})`,
          node,
        )
      const args = isNode(node.args) && isNode(node.args.expr) ? node.args.expr : undefined
      const items = args && isNode(args.args) && Array.isArray(args.args.items) ? args.args.items : []
      if (items.length !== 1 || args?.distinctKw || args?.orderBy || node.filter || node.over)
        throw sqlProblem(`${name}() takes exactly one column`, node)
      const inner = this.columnRef(items[0])
      if (inner.fn) throw sqlProblem('functions cannot be nested', items[0])
      if (!TEXT_KINDS.has(inner.field.kind)) throw sqlProblem(`${name}() applies to text columns only`, node)
      return { ...inner, fn }
    }
    if (!isNode(node) || (node.type !== 'identifier' && node.type !== 'member_expr'))
      throw sqlProblem(
        `${describe(node)} is not allowed here: a condition compares a column with a value`,
        node,
      )
    return this.column(node)
  }

  private literal(node: unknown): Literal {
    if (isNode(node)) {
      switch (node.type) {
        case 'string_literal':
        case 'number_literal':
        case 'boolean_literal':
        case 'null_literal':
          return { value: node.value as Literal['value'] }
        case 'prefix_op_expr':
          if (operatorName(node.operator) === '-' && isNode(node.expr) && node.expr.type === 'number_literal')
            return { value: -(node.expr.value as number) }
      }
    }
    // SQLite reads "paid" as a column name; the mistake is common enough to name.
    if (isNode(node) && node.type === 'identifier' && String(node.text).startsWith('"'))
      throw sqlProblem(
        `${String(node.text).slice(0, 64)} is a column name in SQL; write text in single quotes`,
        node,
      )
    throw sqlProblem(`${describe(node)} is not allowed here: compare with a literal value`, node)
  }

  private compare(ref: ColumnRef, op: Comparison, literal: Literal, at: unknown): Condition {
    if (isNode(at)) this.count(at)
    const { field, written } = ref
    const fail = (message: string) => sqlProblem(`${written}: ${message}`, at)
    if (ref.fn === 'length') {
      if (typeof literal.value !== 'number' || !Number.isSafeInteger(literal.value))
        throw fail('length() compares with a whole number')
      return { kind: 'compare', field: field.name, op, value: literal.value, fn: 'length' }
    }
    if (ref.fn) {
      if (typeof literal.value !== 'string') throw fail(`${ref.fn}() compares with text`)
      return { kind: 'compare', field: field.name, op, value: literal.value, fn: ref.fn }
    }
    if (field.kind === 'boolean' && op !== 'eq' && op !== 'ne')
      throw fail('true/false columns take = and != only')
    const coerced = coerceFilterValue(this.schema, field, booleanish(field, literal.value))
    if ('error' in coerced) throw fail(coerced.error)
    return { kind: 'compare', field: field.name, op, value: coerced.value }
  }

  private like(node: SqlNode): Condition {
    const ref = this.columnRef(node.left)
    if (ref.fn === 'length' || (ref.field.kind !== 'text' && ref.field.kind !== 'enum'))
      throw sqlProblem(`${ref.written}: LIKE applies to text columns only`, node)
    let patternNode = node.right
    let escapeChar: string | undefined
    if (
      isNode(patternNode) &&
      patternNode.type === 'binary_expr' &&
      operatorName(patternNode.operator) === 'ESCAPE'
    ) {
      const escapeNode = patternNode.right
      if (
        !isNode(escapeNode) ||
        escapeNode.type !== 'string_literal' ||
        (escapeNode.value as string).length !== 1
      )
        throw sqlProblem('ESCAPE takes one character in quotes', escapeNode)
      escapeChar = escapeNode.value as string
      patternNode = patternNode.left
    }
    if (!isNode(patternNode) || patternNode.type !== 'string_literal')
      throw sqlProblem('LIKE takes a pattern in single quotes', patternNode)
    const pattern = likePattern(patternNode.value as string, escapeChar)
    const problem =
      pattern === undefined
        ? 'uses its escape character before a character other than %, _ or itself'
        : likePatternProblem(pattern)
    if (problem) throw sqlProblem(`${ref.written}: LIKE pattern ${problem}`, patternNode)
    this.count(node)
    return { kind: 'compare', field: ref.field.name, op: 'like', value: pattern!, ...fnOf(ref) }
  }

  private inList(node: SqlNode): Condition {
    const ref = this.columnRef(node.left)
    if (ref.fn) throw sqlProblem('IN compares a plain column', node)
    const list = isNode(node.right) && node.right.type === 'paren_expr' ? node.right.expr : undefined
    const items = isNode(list) && list.type === 'list_expr' && Array.isArray(list.items) ? list.items : [list]
    if (items.length > MAX_IN_VALUES) throw sqlProblem(`more than ${MAX_IN_VALUES} values in IN`, node.right)
    const values: (string | number)[] = []
    for (const item of items) {
      const literal = this.literal(item)
      if (literal.value === null) throw sqlProblem('NULL in an IN list (use IS NULL)', item)
      const coerced = coerceFilterValue(this.schema, ref.field, literal.value)
      if ('error' in coerced) throw sqlProblem(`${ref.written}: ${coerced.error}`, item)
      if (typeof coerced.value === 'boolean')
        throw sqlProblem(`${ref.written}: IN does not apply to true/false columns`, item)
      values.push(coerced.value)
    }
    this.count(node)
    return { kind: 'compare', field: ref.field.name, op: 'in', value: values }
  }
}

const fnOf = (ref: ColumnRef) => (ref.fn ? { fn: ref.fn } : {})

const isLiteral = (node: unknown) =>
  isNode(node) &&
  (node.type.endsWith('_literal') || (node.type === 'prefix_op_expr' && operatorName(node.operator) === '-'))

// SQLite stores true/false as 1/0, so `active = 1` means `active = true`.
function booleanish(field: QueryField, value: unknown): unknown {
  if (field.kind === 'boolean' && (value === 1 || value === 0)) return value === 1
  return value
}

/**
 * Rewrites a SQL LIKE pattern for the compiler, which always uses `ESCAPE '\'`: without an ESCAPE
 * clause a backslash is an ordinary character; with one, its escapes become backslash escapes.
 * Undefined when the escape character precedes something it cannot escape.
 */
function likePattern(pattern: string, escapeChar?: string): string | undefined {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (escapeChar !== undefined && c === escapeChar) {
      const next = pattern[i + 1]
      if (next === '%' || next === '_') out += `\\${next}`
      else if (next === escapeChar) out += next === '\\' ? '\\\\' : next
      else return undefined
      i += 1
    } else out += c === '\\' ? '\\\\' : c
  }
  return out
}
