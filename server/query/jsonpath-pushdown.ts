import { jsonpath } from 'json-p3'
import { queryField } from '../../shared/query/fields.ts'
import type { Comparison, Condition } from '../../shared/query/types.ts'
import { objectOf } from '../../shared/resources/define.ts'
import type { Resource } from '../../shared/resources/index.ts'

const { InfixExpression, PrefixExpression, LogicalExpression, RelativeQuery } = jsonpath.expressions
const { StringLiteral, NumberLiteral, BooleanLiteral, NullLiteral } = jsonpath.expressions
const { NameSelector } = jsonpath.selectors

/** A translated filter: SQL conditions that hold for every record the filter keeps (a superset). */
interface Pushdown {
  condition: Condition
  /** True when the condition keeps exactly the records the filter keeps. */
  exact: boolean
}

const OPERATORS: Record<string, Comparison> = {
  '==': 'eq',
  '!=': 'ne',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
}
const FLIPPED: Partial<Record<Comparison, Comparison>> = { lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte' }

/**
 * Translates a JSONPath filter expression (RFC 9535 §2.3.5) into SQL conditions where it can:
 * comparisons of `@.field` with a literal, joined by `&&`, `||` and `!`. Undefined means "no
 * constraint" (everything passes). The translation never drops a record the filter keeps; when it
 * is not exact, the filter itself still runs on each record.
 *
 * Every comparison is made two-valued (NULL never leaks into NOT), and its types follow JSONPath's:
 * a record's fields are compared with literals of the same JSON type only, strings as text
 * (SQLite's BINARY order is code point order, as RFC 9535 §2.3.5.2.2 wants), so `@.createdAt`
 * compares as the stored ISO string, exactly as in JSON.
 */
export function pushdown(resource: Resource, expression: unknown): Pushdown | undefined {
  if (expression instanceof LogicalExpression) return pushdown(resource, expression.expression)
  if (expression instanceof PrefixExpression && expression.operator === '!') {
    const inner = pushdown(resource, expression.right)
    return inner?.exact ? { condition: { kind: 'not', condition: inner.condition }, exact: true } : undefined
  }
  if (!(expression instanceof InfixExpression)) return undefined
  const { operator } = expression
  if (operator === '&&' || operator === '||') {
    const left = pushdown(resource, expression.left)
    const right = pushdown(resource, expression.right)
    if (operator === '||') {
      if (!left || !right) return undefined
      return {
        condition: { kind: 'or', conditions: [left.condition, right.condition] },
        exact: left.exact && right.exact,
      }
    }
    const parts = [left, right].filter((p): p is Pushdown => p !== undefined)
    if (parts.length === 0) return undefined
    return {
      condition:
        parts.length === 1 ? parts[0]!.condition : { kind: 'and', conditions: parts.map((p) => p.condition) },
      exact: parts.length === 2 && parts.every((p) => p.exact),
    }
  }
  const op = OPERATORS[operator]
  if (!op) return undefined
  const leftField = fieldOf(resource, expression.left)
  const rightField = fieldOf(resource, expression.right)
  if (leftField && !rightField) return compare(leftField, op, expression.right)
  if (rightField && !leftField) return compare(rightField, FLIPPED[op] ?? op, expression.left)
  return undefined
}

/** A record field, and whether it is a member of a declared object (`@.actor.id`). */
type Field = NonNullable<ReturnType<typeof queryField>> & { member?: true }

/**
 * The record field a singular relative query names, if it is one the store holds: `@.name`, or
 * `@.object.key` for a member of a declared object (an event's `@.actor.id` is `actorId`).
 */
function fieldOf(resource: Resource, node: unknown): Field | undefined {
  if (!(node instanceof RelativeQuery)) return undefined
  const names: string[] = []
  for (const segment of node.path.segments) {
    const selectors = segment.selectors
    if (segment.constructor.name !== 'ChildSegment' || selectors.length !== 1) return undefined
    if (!(selectors[0] instanceof NameSelector)) return undefined
    names.push(selectors[0].name)
  }
  const [first, key] = names
  if (names.length === 2 && Object.hasOwn(resource.objects, first!)) {
    const members = resource.objects[first!]!
    const field = Object.hasOwn(members, key!) ? queryField(resource, members[key!]!) : undefined
    return field && { ...field, member: true }
  }
  if (names.length !== 1) return undefined
  // JSON names only: `@.user_id` is not a key of the record, nor `@.actorId` (shown inside `actor`).
  const field = queryField(resource, first!)
  return field && field.name === first && objectOf(resource, first!) === undefined ? field : undefined
}

function literalOf(node: unknown): { value: string | number | boolean | null } | undefined {
  if (node instanceof StringLiteral || node instanceof NumberLiteral || node instanceof BooleanLiteral)
    return { value: node.value }
  if (node instanceof NullLiteral) return { value: null }
  return undefined
}

const JSON_TYPE: Record<string, 'string' | 'number' | 'boolean'> = {
  text: 'string',
  enum: 'string',
  reference: 'string',
  timestamp: 'string',
  integer: 'number',
  boolean: 'boolean',
}

function compare(field: Field, op: Comparison, node: unknown): Pushdown | undefined {
  const literal = literalOf(node)
  if (!literal) return undefined
  const base = { kind: 'compare' as const, field: field.name }
  if (literal.value === null) {
    // `@.x == null`; ordering against null is left to the filter itself. A member is null only
    // where its object is, and then `@.actor.id` selects nothing, which no literal equals.
    if ((op !== 'eq' && op !== 'ne') || field.member) return undefined
    return { condition: { ...base, op, value: null }, exact: true }
  }
  if (typeof literal.value !== JSON_TYPE[field.kind]) return undefined
  if (typeof literal.value === 'boolean' && op !== 'eq' && op !== 'ne') return undefined
  const condition: Condition = { ...base, op, value: literal.value }
  if (!field.nullable) return { condition, exact: true }
  // A null field: JSONPath's `!=` is true and every other comparison false; SQL would say NULL.
  const isNull: Condition = { ...base, op: 'eq', value: null }
  const notNull: Condition = { ...base, op: 'ne', value: null }
  return {
    condition:
      op === 'ne'
        ? { kind: 'or', conditions: [condition, isNull] }
        : { kind: 'and', conditions: [condition, notNull] },
    exact: true,
  }
}
