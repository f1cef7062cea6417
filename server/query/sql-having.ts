import { AGGREGATE_FUNCTIONS, orderedFields, summableFields } from '../../shared/query/aggregate-params.ts'
import type { Aggregate, HavingCondition } from '../../shared/query/aggregate-types.ts'
import { coerceFilterValue, type QueryField, queryField, snakeName } from '../../shared/query/fields.ts'
import { MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH } from '../../shared/query/filter-expression.ts'
import type { Resource } from '../../shared/resources/index.ts'
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

type HavingOp = Extract<HavingCondition, { kind: 'compare' }>['op']

/**
 * The five aggregate functions of SQL bodies and the HAVING conditions on them, read from the
 * syntax tree against an allow-list as WHERE is (sql-where.ts).
 */

type Column = (node: SqlNode, allowed: string[], use: string) => { field: QueryField; written: string }

/** The name a function call is written with, lowercase (`COUNT` is `count`); '' when it has none. */
export function functionName(node: SqlNode): string {
  return isNode(node.name) && typeof node.name.name === 'string' ? node.name.name.toLowerCase() : ''
}

/** The argument list of a function call, refusing DISTINCT, ORDER BY, FILTER and OVER. */
export function functionArgs(node: SqlNode, name: string): unknown[] {
  const args = isNode(node.args) && isNode(node.args.expr) ? node.args.expr : undefined
  if (args?.distinctKw) throw sqlProblem(`${name}(DISTINCT ...) is not allowed`, node)
  if (args?.orderBy || node.filter || node.over)
    throw sqlProblem(`${name}() takes no ORDER BY, FILTER or OVER`, node)
  return args && isNode(args.args) && Array.isArray(args.args.items) ? args.args.items : []
}

/** `count` or `sum(amount)` as written back in messages. */
export const aggregateText = (a: Aggregate) => (a.field ? `${a.fn}(${snakeName(a.field)})` : 'count(*)')

/**
 * Reads `count(*)`, `sum(f)`, `avg(f)` (integer fields), `min(f)`, `max(f)` (sortable fields);
 * undefined for a node that is not a call of one of them.
 */
export function readAggregate(resource: Resource, column: Column, node: unknown): Aggregate | undefined {
  if (!isNode(node) || node.type !== 'func_call') return undefined
  const fn = AGGREGATE_FUNCTIONS.find((f) => f === functionName(node))
  if (!fn) return undefined
  const items = functionArgs(node, fn)
  if (fn === 'count') {
    if (items.length > 1 || (items.length === 1 && (!isNode(items[0]) || items[0].type !== 'all_columns')))
      throw sqlProblem('count takes * (count(*)): it counts the records of a group', node)
    return { fn }
  }
  const arg = items[0]
  if (items.length !== 1 || !isNode(arg) || (arg.type !== 'identifier' && arg.type !== 'member_expr'))
    throw sqlProblem(`${fn}() takes exactly one column`, node)
  if (fn === 'sum' || fn === 'avg') {
    const { field } = column(arg, summableFields(resource), fn === 'sum' ? 'summed' : 'averaged')
    return { fn, field: field.name }
  }
  const { field } = column(arg, orderedFields(resource), `used in ${fn}()`)
  return { fn, field: field.name }
}

/** Turns a HAVING expression into the aggregate query's condition tree. */
export class HavingTranslator {
  private comparisons = 0

  constructor(
    private readonly schema: Schema,
    private readonly resource: Resource,
    private readonly column: Column,
  ) {}

  condition(node: unknown, depth = 0): HavingCondition {
    if (!isNode(node)) throw sqlProblem('this part of the HAVING clause is not allowed')
    if (depth > MAX_FILTER_DEPTH)
      throw sqlProblem(`conditions nest deeper than ${MAX_FILTER_DEPTH} levels`, node)
    if (node.type === 'paren_expr') return this.condition(node.expr, depth + 1)
    if (node.type === 'prefix_op_expr' && operatorName(node.operator) === 'NOT')
      return { kind: 'not', condition: this.condition(node.expr, depth + 1) }
    if (node.type === 'between_expr') {
      const aggregate = this.aggregate(node.left)
      const range: HavingCondition = {
        kind: 'and',
        conditions: [this.compare(aggregate, 'gte', node.begin), this.compare(aggregate, 'lte', node.end)],
      }
      return operatorName(node.betweenKw) === 'NOT BETWEEN' ? { kind: 'not', condition: range } : range
    }
    if (node.type !== 'binary_expr') throw sqlProblem(`${describe(node)} is not allowed in HAVING`, node)
    const op = operatorName(node.operator)
    if (op === 'AND' || op === 'OR')
      return joined(op, [node.left, node.right], (side) => this.condition(side, depth))
    const comparison = SQL_COMPARISONS[op]
    if (!comparison)
      throw sqlProblem(
        `the operator ${op} is not allowed in HAVING (allowed: = != <> < <= > >= AND OR NOT [NOT] BETWEEN)`,
        node,
      )
    // The aggregate may stand on either side (`5 < count(*)`); the other is the literal.
    const leftIsCall = !isLiteral(node.left)
    const aggregate = this.aggregate(leftIsCall ? node.left : node.right)
    return this.compare(
      aggregate,
      leftIsCall ? comparison : MIRRORED[comparison],
      leftIsCall ? node.right : node.left,
    )
  }

  private aggregate(node: unknown): { aggregate: Aggregate; at: SqlNode } {
    const aggregate = readAggregate(this.resource, this.column, node)
    if (!aggregate || !isNode(node)) {
      const what =
        isNode(node) && (node.type === 'identifier' || node.type === 'member_expr')
          ? 'a column (conditions on columns go in WHERE)'
          : describe(node)
      throw sqlProblem(
        `${what} is not allowed in HAVING: a condition compares count(*), sum, avg, min or max with a value`,
        node,
      )
    }
    return { aggregate, at: node }
  }

  private compare(
    { aggregate, at }: { aggregate: Aggregate; at: SqlNode },
    op: HavingOp,
    valueNode: unknown,
  ): HavingCondition {
    this.comparisons += 1
    if (this.comparisons > MAX_FILTER_COMPARISONS)
      throw sqlProblem(`more than ${MAX_FILTER_COMPARISONS} comparisons`, at)
    const raw = literalValue(valueNode)
    const name = aggregateText(aggregate)
    const field = aggregate.field ? queryField(this.resource, aggregate.field) : undefined
    if (
      aggregate.fn === 'count' ||
      aggregate.fn === 'sum' ||
      aggregate.fn === 'avg' ||
      field?.kind === 'integer'
    ) {
      if (typeof raw !== 'number' || !Number.isFinite(raw))
        throw sqlProblem(`${name} compares with a number`, valueNode)
      return { kind: 'compare', aggregate, op, value: raw }
    }
    const coerced = coerceFilterValue(this.schema, field!, raw)
    if ('error' in coerced) throw sqlProblem(`${name}: ${coerced.error}`, valueNode)
    if (typeof coerced.value === 'boolean')
      throw sqlProblem(`${name}: HAVING does not compare true/false columns`, valueNode)
    return { kind: 'compare', aggregate, op, value: coerced.value }
  }
}

const isLiteral = (node: unknown) =>
  isNode(node) &&
  (node.type.endsWith('_literal') || (node.type === 'prefix_op_expr' && operatorName(node.operator) === '-'))

/** A literal operand of HAVING: a number (negative too) or a single-quoted string. */
function literalValue(node: unknown): number | string {
  if (isNode(node)) {
    if (node.type === 'number_literal' && typeof node.value === 'number') return node.value
    if (node.type === 'string_literal' && typeof node.value === 'string') return node.value
    if (
      node.type === 'prefix_op_expr' &&
      operatorName(node.operator) === '-' &&
      isNode(node.expr) &&
      node.expr.type === 'number_literal'
    )
      return -(node.expr.value as number)
    if (node.type === 'null_literal')
      throw sqlProblem('comparing with NULL is never true in SQL; HAVING compares with a value', node)
  }
  throw sqlProblem(`${describe(node)} is not allowed here: compare with a literal value`, node)
}
