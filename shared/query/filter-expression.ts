import type { Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import {
  camelCase,
  coerceFilterValue,
  filterableFields,
  type QueryField,
  queryField,
  snakeName,
} from './fields.ts'
import {
  describeToken,
  excerpt,
  filterError,
  type Keyword,
  type Punctuation,
  type Token,
  tokenize,
} from './filter-tokens.ts'
import type { Comparison, Condition } from './types.ts'

/** Longest expression accepted, in UTF-16 code units. */
export const MAX_FILTER_LENGTH = 2000
/** Deepest nesting: each `(` and each `NOT` opens a level. */
export const MAX_FILTER_DEPTH = 16
/** Most comparisons in one expression (an IN list counts once). */
export const MAX_FILTER_COMPARISONS = 64
export const MAX_IN_VALUES = 100
export const MAX_LIKE_LENGTH = 100
/** Most `%` and `_` wildcards in one LIKE pattern; each one multiplies the cost of matching. */
export const MAX_LIKE_WILDCARDS = 5

const OPERATORS: Partial<Record<Punctuation, Comparison>> = {
  '=': 'eq',
  '!=': 'ne',
  '<>': 'ne',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
}

interface Literal {
  value: string | number | boolean | null
  position: number
}

/** A field as the expression named it, resolved to its declaration. */
interface NamedField {
  written: string
  field: QueryField
}

class FilterParser {
  private index = 0
  private depth = 0
  private comparisons = 0

  constructor(
    private readonly schema: Schema,
    private readonly resource: Resource,
    private readonly tokens: Token[],
  ) {}

  parse(): Condition {
    if (this.peek().kind === 'end') throw filterError('empty expression')
    const condition = this.or()
    const token = this.peek()
    if (token.kind !== 'end') throw this.unexpected(token, 'AND, OR or end of expression')
    return condition
  }

  private peek(): Token {
    return this.tokens[this.index]!
  }

  private next(): Token {
    const token = this.tokens[this.index]!
    if (token.kind !== 'end') this.index += 1
    return token
  }

  private acceptKeyword(keyword: Keyword): Token | undefined {
    const token = this.peek()
    if (token.kind === 'keyword' && token.keyword === keyword) return this.next()
    return undefined
  }

  private expectSymbol(symbol: Punctuation, expected: string): void {
    const token = this.next()
    if (token.kind !== 'symbol' || token.symbol !== symbol) throw this.unexpected(token, expected)
  }

  private unexpected(token: Token, expected: string) {
    return filterError(`unexpected ${describeToken(token)} at ${token.position} (expected ${expected})`)
  }

  // Checked before recursing, so that no input can exhaust the stack.
  private enter(position: number): void {
    this.depth += 1
    if (this.depth > MAX_FILTER_DEPTH) {
      throw filterError(`nesting deeper than ${MAX_FILTER_DEPTH} levels at ${position}`)
    }
  }

  private or(): Condition {
    const first = this.and()
    if (!this.acceptKeyword('OR')) return first
    const conditions = [first, this.and()]
    while (this.acceptKeyword('OR')) conditions.push(this.and())
    return { kind: 'or', conditions }
  }

  private and(): Condition {
    const first = this.unary()
    if (!this.acceptKeyword('AND')) return first
    const conditions = [first, this.unary()]
    while (this.acceptKeyword('AND')) conditions.push(this.unary())
    return { kind: 'and', conditions }
  }

  private unary(): Condition {
    const not = this.acceptKeyword('NOT')
    if (!not) return this.primary()
    this.enter(not.position)
    const condition = this.unary()
    this.depth -= 1
    return { kind: 'not', condition }
  }

  private primary(): Condition {
    const token = this.next()
    if (token.kind === 'symbol' && token.symbol === '(') {
      this.enter(token.position)
      const condition = this.or()
      this.expectSymbol(')', "')', AND or OR")
      this.depth -= 1
      return condition
    }
    if (token.kind === 'name') return this.comparison(token.text, token.position)
    throw this.unexpected(token, "a field name, NOT or '('")
  }

  private resolve(written: string, position: number): NamedField {
    const allowed = filterableFields(this.resource)
    // Checked against the list before queryField, which would also answer for names like `toString`.
    const field = allowed.includes(camelCase(written)) ? queryField(this.resource, written) : undefined
    if (!field) {
      const names = allowed.map(snakeName).join(', ')
      throw filterError(`unknown field "${excerpt(written)}" at ${position} (allowed: ${names})`)
    }
    return { written, field }
  }

  private comparison(written: string, position: number): Condition {
    this.comparisons += 1
    if (this.comparisons > MAX_FILTER_COMPARISONS) {
      throw filterError(`more than ${MAX_FILTER_COMPARISONS} comparisons at ${position}`)
    }
    const named = this.resolve(written, position)
    const token = this.next()
    if (token.kind === 'symbol' && OPERATORS[token.symbol]) {
      return this.compare(named, OPERATORS[token.symbol]!, token.symbol, this.literal())
    }
    if (token.kind === 'keyword') {
      switch (token.keyword) {
        case 'NOT': {
          const negated = this.next()
          if (negated.kind === 'keyword' && negated.keyword === 'IN') return not(this.inList(named))
          if (negated.kind === 'keyword' && negated.keyword === 'LIKE') return not(this.like(named, negated))
          throw this.unexpected(negated, 'IN or LIKE after NOT')
        }
        case 'IN':
          return this.inList(named)
        case 'LIKE':
          return this.like(named, token)
        case 'IS': {
          const op = this.acceptKeyword('NOT') ? 'ne' : 'eq'
          const value = this.next()
          if (value.kind !== 'keyword' || value.keyword !== 'NULL') throw this.unexpected(value, 'NULL')
          return this.compare(named, op, 'IS', { value: null, position: value.position })
        }
      }
    }
    throw this.unexpected(token, 'an operator, IN, LIKE or IS')
  }

  private literal(): Literal {
    const token = this.next()
    const position = token.position
    if (token.kind === 'string' || token.kind === 'number') return { value: token.value, position }
    if (token.kind === 'keyword' && token.keyword === 'TRUE') return { value: true, position }
    if (token.kind === 'keyword' && token.keyword === 'FALSE') return { value: false, position }
    if (token.kind === 'keyword' && token.keyword === 'NULL') return { value: null, position }
    // The word itself, quoted, is what the writer most likely meant.
    if (token.kind === 'name')
      throw this.unexpected(token, `a value; quote text as in '${excerpt(token.text)}'`)
    throw this.unexpected(token, 'a value')
  }

  private compare(
    { written, field }: NamedField,
    op: Comparison,
    shown: string,
    literal: Literal,
  ): Condition {
    const at = literal.position
    if (literal.value === null) {
      if (op !== 'eq' && op !== 'ne') throw filterError(`'${shown}' cannot compare with NULL at ${at}`)
      if (!field.nullable) throw filterError(`${written}: is never NULL at ${at}`)
      return { kind: 'compare', field: field.name, op, value: null }
    }
    if (op !== 'eq' && op !== 'ne' && field.kind === 'boolean') {
      throw filterError(`${written}: '${shown}' does not apply to true/false fields at ${at}`)
    }
    const coerced = coerceFilterValue(this.schema, field, literal.value)
    if ('error' in coerced) throw filterError(`${written}: ${coerced.error} at ${at}`)
    return { kind: 'compare', field: field.name, op, value: coerced.value }
  }

  private inList({ written, field }: NamedField): Condition {
    this.expectSymbol('(', "'(' after IN")
    const values: (string | number)[] = []
    do {
      const literal = this.literal()
      const at = literal.position
      if (values.length === MAX_IN_VALUES)
        throw filterError(`more than ${MAX_IN_VALUES} values in IN at ${at}`)
      if (literal.value === null) throw filterError(`NULL in an IN list at ${at} (use IS NULL)`)
      const coerced = coerceFilterValue(this.schema, field, literal.value)
      if ('error' in coerced) throw filterError(`${written}: ${coerced.error} at ${at}`)
      if (typeof coerced.value === 'boolean') {
        throw filterError(`${written}: IN does not apply to true/false fields at ${at} (use =)`)
      }
      values.push(coerced.value)
    } while (this.acceptSymbol(','))
    this.expectSymbol(')', "',' or ')'")
    return { kind: 'compare', field: field.name, op: 'in', value: values }
  }

  private acceptSymbol(symbol: Punctuation): boolean {
    const token = this.peek()
    if (token.kind !== 'symbol' || token.symbol !== symbol) return false
    this.next()
    return true
  }

  private like({ written, field }: NamedField, keyword: Token): Condition {
    if (field.kind !== 'text' && field.kind !== 'enum') {
      throw filterError(`${written}: LIKE applies to text fields only at ${keyword.position}`)
    }
    const token = this.next()
    if (token.kind !== 'string') throw this.unexpected(token, 'a quoted pattern after LIKE')
    const problem = likePatternProblem(token.value)
    if (problem) throw filterError(`${written}: LIKE pattern ${problem} at ${token.position}`)
    return { kind: 'compare', field: field.name, op: 'like', value: token.value }
  }
}

const not = (condition: Condition): Condition => ({ kind: 'not', condition })

/** Why a LIKE pattern is refused, if it is; `\` escapes the next character (`ESCAPE '\'`). */
export function likePatternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_LIKE_LENGTH) return `is longer than ${MAX_LIKE_LENGTH} characters`
  let wildcards = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      if (i === pattern.length - 1) return 'ends with an escaping backslash'
      i += 1
    } else if (c === '%' || c === '_') wildcards += 1
  }
  if (wildcards > MAX_LIKE_WILDCARDS) return `has more than ${MAX_LIKE_WILDCARDS} wildcards (% or _)`
  return undefined
}

/**
 * Parses a filter expression (`status = 'paid' and amount >= 1000`) into a condition on the
 * resource's filterable fields, with values typed and checked per field. The grammar and limits are
 * in docs/filter-grammar.md. Throws only a BAD_REQUEST ApiError with one detail on `filter`.
 */
export function parseFilterExpression(schema: Schema, resource: Resource, text: string): Condition {
  if (typeof text !== 'string') throw filterError('must be a string')
  if (text.length > MAX_FILTER_LENGTH) {
    throw filterError(`longer than ${MAX_FILTER_LENGTH} characters (${text.length})`)
  }
  return new FilterParser(schema, resource, tokenize(text)).parse()
}
