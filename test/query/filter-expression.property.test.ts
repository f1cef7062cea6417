import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../shared/errors.ts'
import {
  MAX_FILTER_COMPARISONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LENGTH,
  MAX_LIKE_WILDCARDS,
  parseFilterExpression,
} from '../../shared/query/filter-expression.ts'
import type { Comparison, Condition } from '../../shared/query/types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { example, valuesOf } from '../support/example.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')
const orders = example('orders')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/** Parses, and turns the only allowed failure into `undefined`; anything else fails the property. */
function parseOrRefuse(text: string): Condition | undefined {
  try {
    return parseFilterExpression(SCHEMA, orders, text)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    expect(error.code).toBe('BAD_REQUEST')
    expect(error.details).toHaveLength(1)
    expect(error.details[0]!.field).toBe('filter')
    return undefined
  }
}

const SYMBOLS: Record<Exclude<Comparison, 'like' | 'in'>, string> = {
  eq: '=',
  ne: '!=',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
}

const OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'] as const

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`

function printValue(value: string | number | boolean): string {
  return typeof value === 'string' ? quote(value) : String(value)
}

/** Prints a condition back as an expression, with parentheses only where the tree needs them. */
function printCondition(condition: Condition): string {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return condition.conditions
        .map((child) => {
          const grouped = child.kind === condition.kind || (condition.kind === 'and' && child.kind === 'or')
          return grouped ? `(${printCondition(child)})` : printCondition(child)
        })
        .join(` ${condition.kind} `)
    case 'not': {
      const inner = printCondition(condition.condition)
      const grouped = condition.condition.kind === 'and' || condition.condition.kind === 'or'
      return `not ${grouped ? `(${inner})` : inner}`
    }
    case 'compare': {
      const { field, op, value } = condition
      if (Array.isArray(value)) return `${field} in (${value.map(printValue).join(', ')})`
      if (value === null) return `${field} is ${op === 'ne' ? 'not ' : ''}null`
      if (op === 'in') throw new Error('an IN comparison holds a list')
      if (op === 'like') return `${field} like ${printValue(value)}`
      return `${field} ${SYMBOLS[op]} ${printValue(value)}`
    }
  }
}

// --- a generator of valid expressions, each with the tree it must parse to ---

interface Generated {
  text: string
  condition: Condition
  /** Nesting as the parser counts it: each `(` and each NOT. */
  depth: number
  comparisons: number
}

const space = fc.constantFrom(' ', '  ', '\t', '\n', ' \r\n ')
const keyword = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))

/** A string literal in either quote style, its quote escaped either way. */
const stringLiteral = (value: string) =>
  fc.tuple(fc.constantFrom("'", '"'), fc.boolean()).map(([q, doubled]) => {
    const escaped = value.replaceAll('\\', '\\\\').replaceAll(q, doubled ? q + q : `\\${q}`)
    return `${q}${escaped}${q}`
  })

interface Typed {
  /** Text as written in the expression. */
  text: string
  /** The typed value the parser must produce. */
  value: string | number
}

// Any text a value may hold: every character but U+0000, which no stored text holds (a 400).
const text = fc.string({ maxLength: 12, unit: 'binary' }).filter((s) => !s.includes('\u0000'))
const typedText: fc.Arbitrary<Typed> = text.chain((value) =>
  stringLiteral(value).map((t) => ({ text: t, value })),
)
/** A well-formed user id: reference fields take ids of the referenced collection only. */
const typedUserId: fc.Arbitrary<Typed> = fc
  .stringMatching(/^usr_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
  .chain((value) => stringLiteral(value).map((t) => ({ text: t, value })))
const typedStatus: fc.Arbitrary<Typed> = fc
  .constantFrom(...ORDER_STATUSES)
  .chain((value) => stringLiteral(value).map((t) => ({ text: t, value })))
const typedAmount: fc.Arbitrary<Typed> = fc
  .oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.maxSafeInteger(),
    fc.constant(Number.MIN_SAFE_INTEGER),
  )
  .map((value) => ({ text: String(value), value }))
const typedTimestamp: fc.Arbitrary<Typed> = fc
  .tuple(
    fc.date({ min: new Date('1971-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
    fc.constantFrom('date', 'utc', 'offset'),
    fc.integer({ min: -12 * 60, max: 14 * 60 }),
  )
  .map(([date, style, offset]): { written: string; value: string } => {
    const iso = date.toISOString()
    if (style === 'utc') return { written: iso, value: iso }
    if (style === 'date') return { written: iso.slice(0, 10), value: `${iso.slice(0, 10)}T00:00:00.000Z` }
    const whole = new Date(Math.floor(date.getTime() / 1000) * 1000)
    const local = new Date(whole.getTime() + offset * 60_000).toISOString().slice(0, 19)
    const sign = offset < 0 ? '-' : '+'
    const hhmm = `${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`
    return { written: `${local}${sign}${hhmm}`, value: whole.toISOString() }
  })
  .chain(({ written, value }) => stringLiteral(written).map((t) => ({ text: t, value })))

/** A LIKE pattern: literal runs, escaped wildcards and at most MAX_LIKE_WILDCARDS real ones. */
const likePattern = fc
  .array(
    fc.oneof(
      fc.constantFrom('%', '_'),
      fc.constantFrom('\\%', '\\_', '\\\\'),
      fc.string({ maxLength: 6 }).filter((s) => !/[%_\\]/.test(s)),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''))
  .filter((p) => p.replaceAll(/\\./g, '').replaceAll(/[^%_]/g, '').length <= MAX_LIKE_WILDCARDS)

interface FieldSpec {
  names: [string, ...string[]]
  json: string
  value: fc.Arbitrary<Typed>
  like: boolean
}

const FIELDS: FieldSpec[] = [
  { names: ['id'], json: 'id', value: typedText, like: true },
  { names: ['userId', 'user_id'], json: 'userId', value: typedUserId, like: false },
  { names: ['status'], json: 'status', value: typedStatus, like: true },
  { names: ['amount'], json: 'amount', value: typedAmount, like: false },
  { names: ['currency'], json: 'currency', value: typedText, like: true },
  { names: ['createdAt', 'created_at'], json: 'createdAt', value: typedTimestamp, like: false },
  { names: ['updatedAt', 'updated_at'], json: 'updatedAt', value: typedTimestamp, like: false },
]

type CompareValue = Extract<Condition, { kind: 'compare' }>['value']

/** NOT before IN or LIKE, half of the time. */
const maybeNot = fc.tuple(fc.boolean(), keyword('not')).map(([used, word]) => (used ? word : undefined))

const leaf = (condition: Condition, text: string): Generated => ({
  text,
  condition,
  depth: 0,
  comparisons: 1,
})

const comparison: fc.Arbitrary<Generated> = fc.constantFrom(...FIELDS).chain((spec) => {
  const name = fc.constantFrom(...spec.names)
  const compare = (op: Comparison, value: CompareValue): Condition => ({
    kind: 'compare',
    field: spec.json,
    op,
    value,
  })
  const binary = fc
    .tuple(name, fc.constantFrom(...OPERATORS), fc.boolean(), spec.value, space)
    .map(([n, op, diamond, v, s]) =>
      leaf(compare(op, v.value), `${n}${s}${op === 'ne' && diamond ? '<>' : SYMBOLS[op]}${s}${v.text}`),
    )
  const list = fc
    .tuple(name, maybeNot, keyword('in'), fc.array(spec.value, { minLength: 1, maxLength: 5 }), space)
    .map(([n, negated, kwIn, values, s]) => {
      const inList = compare(
        'in',
        values.map((v) => v.value),
      )
      const written = `${n}${s}${negated ? `${negated}${s}` : ''}${kwIn}${s}(${values.map((v) => v.text).join(`,${s}`)})`
      return leaf(negated ? { kind: 'not', condition: inList } : inList, written)
    })
  const like = fc
    .tuple(name, maybeNot, keyword('like'), likePattern, space)
    .chain(([n, negated, kwLike, pattern, s]) =>
      stringLiteral(pattern).map((literal) => {
        const condition = compare('like', pattern)
        const written = `${n}${s}${negated ? `${negated}${s}` : ''}${kwLike}${s}${literal}`
        return leaf(negated ? { kind: 'not', condition } : condition, written)
      }),
    )
  return spec.like ? fc.oneof(binary, list, like) : fc.oneof(binary, list)
})

const expression = fc
  .letrec<{ node: Generated }>((tie) => {
    const junction = (kind: 'and' | 'or') =>
      fc
        .tuple(
          fc.array(fc.tuple(tie('node'), fc.boolean()), { minLength: 2, maxLength: 3 }),
          keyword(kind),
          space,
        )
        .map(([children, word, s]): Generated => {
          const parts = children.map(([child, extraParens]) => {
            const needed = child.condition.kind === kind || (kind === 'and' && child.condition.kind === 'or')
            const grouped = needed || extraParens
            return { text: grouped ? `(${child.text})` : child.text, depth: child.depth + (grouped ? 1 : 0) }
          })
          return {
            text: parts.map((p) => p.text).join(`${s}${word}${s}`),
            condition: { kind, conditions: children.map(([child]) => child.condition) },
            depth: Math.max(...parts.map((p) => p.depth)),
            comparisons: children.reduce((sum, [child]) => sum + child.comparisons, 0),
          }
        })
    const negation = fc.tuple(tie('node'), keyword('not'), space).map(([child, word, s]): Generated => {
      const grouped = child.condition.kind === 'and' || child.condition.kind === 'or'
      return {
        text: `${word}${s}${grouped ? `(${child.text})` : child.text}`,
        condition: { kind: 'not', condition: child.condition },
        depth: child.depth + 1 + (grouped ? 1 : 0),
        comparisons: child.comparisons,
      }
    })
    return {
      node: fc.oneof(
        { maxDepth: 4, depthIdentifier: 'filter' },
        comparison,
        junction('and'),
        junction('or'),
        negation,
      ),
    }
  })
  .node.filter(
    (g) =>
      g.depth <= MAX_FILTER_DEPTH &&
      g.comparisons <= MAX_FILTER_COMPARISONS &&
      g.text.length <= MAX_FILTER_LENGTH,
  )

// --- token soup: the grammar's pieces in any order ---

const PIECES = [
  'status',
  'amount',
  'user_id',
  'userId',
  'created_at',
  'currency',
  'id',
  'foo',
  'toString',
  'and',
  'OR',
  'Not',
  'in',
  'LIKE',
  'is',
  'null',
  'true',
  'FALSE',
  '(',
  ')',
  ',',
  '=',
  '!=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  '!',
  '-',
  '.',
  '\\',
  "'",
  '"',
  "'paid'",
  '"paid"',
  "'it''s'",
  String.raw`'a\'b'`,
  "'%a_'",
  "'2026-01-01'",
  "'bogus'",
  '0',
  '12',
  '-3',
  '1.5',
  '-0',
  '99999999999999999999',
]

const soup = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('', ' ', '\t')), { maxLength: 30 })
  .map((parts) => parts.map(([piece, gap]) => piece + gap).join(''))

/** A valid expression with a piece cut out or a grammar piece put in: near misses reach deep paths. */
const mutated = fc
  .tuple(expression, fc.nat(), fc.nat({ max: 4 }), fc.constantFrom('', ...PIECES))
  .map(([{ text }, at, cut, piece]) => {
    const i = at % (text.length + 1)
    return text.slice(0, i) + piece + text.slice(i + cut)
  })

describe('parseFilterExpression (properties)', () => {
  it('throws nothing but a BAD_REQUEST ApiError with a filter detail, for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string({ unit: 'grapheme-ascii' }),
          soup,
          mutated,
        ),
        (input) => {
          parseOrRefuse(input)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('parses every valid expression to its tree, and the printed tree back to the same tree', () => {
    fc.assert(
      fc.property(expression, (generated) => {
        const parsed = parseFilterExpression(SCHEMA, orders, generated.text)
        expect(parsed).toEqual(generated.condition)
        expect(parseFilterExpression(SCHEMA, orders, printCondition(parsed))).toEqual(parsed)
      }),
      { numRuns: 1000 },
    )
  })

  it('refuses any nesting past the limit cleanly, however deep', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('(', 'not ', 'NOT('), { minLength: MAX_FILTER_DEPTH + 1, maxLength: 3000 }),
        (openers) => {
          expect(parseOrRefuse(`${openers.join('')}amount = 1`)).toBeUndefined()
        },
      ),
      { numRuns: 300 },
    )
    for (const text of [
      '('.repeat(10_000),
      '('.repeat(MAX_FILTER_LENGTH),
      'not '.repeat(MAX_FILTER_LENGTH / 4),
    ]) {
      expect(parseOrRefuse(text)).toBeUndefined()
    }
  })
})
