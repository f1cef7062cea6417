import { describe, expect, it } from 'bun:test'
import { ApiError } from '../../shared/errors.ts'
import {
  MAX_FILTER_COMPARISONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LENGTH,
  MAX_IN_VALUES,
  MAX_LIKE_LENGTH,
  parseFilterExpression,
} from '../../shared/query/filter-expression.ts'
import type { Comparison, Condition } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { users } from '../../shared/resources/users.ts'
import { example } from '../support/example.ts'

const addresses = example('addresses')
const orders = example('orders')
const products = example('products')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

type Value = Extract<Condition, { kind: 'compare' }>['value']
const cmp = (field: string, op: Comparison, value: Value): Condition => ({
  kind: 'compare',
  field,
  op,
  value,
})
const and = (...conditions: Condition[]): Condition => ({ kind: 'and', conditions })
const or = (...conditions: Condition[]): Condition => ({ kind: 'or', conditions })
const not = (condition: Condition): Condition => ({ kind: 'not', condition })

const paid = cmp('status', 'eq', 'paid')
const big = cmp('amount', 'gte', 1000)
const euro = cmp('currency', 'eq', 'EUR')
const USER = 'usr_01h455vb4pex5vsknk084sn02q'
const ORDER_FIELDS = 'id, user_id, status, amount, currency, created_at, updated_at'

interface Valid {
  what: string
  text: string
  expected: Condition
  resource?: Resource
}

const valid: Valid[] = [
  { what: 'a single comparison', text: "status = 'paid'", expected: paid },
  { what: 'double-quoted strings', text: 'status = "paid"', expected: paid },
  { what: '!= as ne', text: 'amount != 5', expected: cmp('amount', 'ne', 5) },
  { what: '<> as ne', text: 'amount <> 5', expected: cmp('amount', 'ne', 5) },
  { what: '<', text: 'amount < 5', expected: cmp('amount', 'lt', 5) },
  { what: '<=', text: 'amount <= 5', expected: cmp('amount', 'lte', 5) },
  { what: '>', text: 'amount > 5', expected: cmp('amount', 'gt', 5) },
  { what: '>=', text: 'amount >= 1000', expected: big },
  { what: 'negative numbers', text: 'amount > -42', expected: cmp('amount', 'gt', -42) },
  { what: 'no spaces around operators', text: "amount>=1000 and(status='paid')", expected: and(big, paid) },
  {
    what: 'tabs and newlines as spaces',
    text: "\tamount >= 1000\nand\r\nstatus = 'paid' ",
    expected: and(big, paid),
  },
  {
    what: 'AND chains into one node',
    text: "status = 'paid' and amount >= 1000 and currency = 'EUR'",
    expected: and(paid, big, euro),
  },
  {
    what: 'OR chains into one node',
    text: "status = 'paid' or amount >= 1000 or currency = 'EUR'",
    expected: or(paid, big, euro),
  },
  {
    what: 'AND binding tighter than OR (right)',
    text: "status = 'paid' or amount >= 1000 and currency = 'EUR'",
    expected: or(paid, and(big, euro)),
  },
  {
    what: 'AND binding tighter than OR (left)',
    text: "status = 'paid' and amount >= 1000 or currency = 'EUR'",
    expected: or(and(paid, big), euro),
  },
  {
    what: 'NOT binding tighter than AND',
    text: "not status = 'paid' and amount >= 1000",
    expected: and(not(paid), big),
  },
  {
    what: 'NOT of a parenthesized OR',
    text: "not (status = 'paid' or amount >= 1000)",
    expected: not(or(paid, big)),
  },
  { what: 'NOT NOT', text: "not not status = 'paid'", expected: not(not(paid)) },
  {
    what: 'parentheses overriding precedence',
    text: "(status = 'paid' or amount >= 1000) and currency = 'EUR'",
    expected: and(or(paid, big), euro),
  },
  {
    what: 'parenthesized AND inside AND kept as written',
    text: "status = 'paid' and (amount >= 1000 and currency = 'EUR')",
    expected: and(paid, and(big, euro)),
  },
  { what: 'redundant parentheses', text: "((status = 'paid'))", expected: paid },
  {
    what: 'keywords in any case',
    text: "NOT city = 'x' AnD country = 'DE' oR postal_code IS nOt NuLl",
    resource: addresses,
    expected: or(and(not(cmp('city', 'eq', 'x')), cmp('country', 'eq', 'DE')), cmp('postalCode', 'ne', null)),
  },
  { what: 'snake_case field names', text: `user_id = '${USER}'`, expected: cmp('userId', 'eq', USER) },
  { what: 'camelCase field names', text: `userId = '${USER}'`, expected: cmp('userId', 'eq', USER) },
  { what: 'the id field', text: "id = 'ord_1'", expected: cmp('id', 'eq', 'ord_1') },
  { what: "a quote doubled inside '…'", text: "currency = 'it''s'", expected: cmp('currency', 'eq', "it's") },
  {
    what: 'a quote doubled inside "…"',
    text: 'currency = "say ""hi"""',
    expected: cmp('currency', 'eq', 'say "hi"'),
  },
  {
    what: 'backslash escapes',
    text: String.raw`currency = 'a\'b\"c\\d'`,
    expected: cmp('currency', 'eq', String.raw`a'b"c\d`),
  },
  {
    what: 'the other quote unescaped',
    text: `currency = "it's" or currency = 'say "hi"'`,
    expected: or(cmp('currency', 'eq', "it's"), cmp('currency', 'eq', 'say "hi"')),
  },
  { what: 'an empty string', text: "currency = ''", expected: cmp('currency', 'eq', '') },
  {
    what: 'a string with keywords and symbols inside',
    text: "currency = 'a AND (b) OR c'",
    expected: cmp('currency', 'eq', 'a AND (b) OR c'),
  },
  { what: 'IN', text: "status in ('paid', 'shipped')", expected: cmp('status', 'in', ['paid', 'shipped']) },
  { what: 'IN with numbers', text: 'amount IN (1,2, -3)', expected: cmp('amount', 'in', [1, 2, -3]) },
  { what: 'IN with one value', text: "status in ('paid')", expected: cmp('status', 'in', ['paid']) },
  {
    what: 'NOT IN as not(in)',
    text: "status not in ('cancelled', 'pending')",
    expected: not(cmp('status', 'in', ['cancelled', 'pending'])),
  },
  {
    what: 'NOT before a NOT IN',
    text: "not status not in ('paid')",
    expected: not(not(cmp('status', 'in', ['paid']))),
  },
  {
    what: 'LIKE on a text field',
    text: "email like '%@acme.example'",
    resource: users,
    expected: cmp('email', 'like', '%@acme.example'),
  },
  {
    what: 'NOT LIKE as not(like)',
    text: "email NOT LIKE 'a%'",
    resource: users,
    expected: not(cmp('email', 'like', 'a%')),
  },
  { what: 'LIKE on an enum field', text: "status like 'p%'", expected: cmp('status', 'like', 'p%') },
  {
    what: String.raw`\% and \_ kept for LIKE`,
    text: String.raw`email like '100\%\_%'`,
    resource: users,
    expected: cmp('email', 'like', String.raw`100\%\_%`),
  },
  {
    what: 'IS NULL on a nullable field',
    text: 'postal_code is null',
    resource: addresses,
    expected: cmp('postalCode', 'eq', null),
  },
  {
    what: 'IS NOT NULL on a nullable field',
    text: 'postalCode IS NOT NULL',
    resource: addresses,
    expected: cmp('postalCode', 'ne', null),
  },
  {
    what: '= NULL on a nullable field',
    text: 'postal_code = null',
    resource: addresses,
    expected: cmp('postalCode', 'eq', null),
  },
  {
    what: '!= NULL on a nullable field',
    text: 'postal_code != NULL',
    resource: addresses,
    expected: cmp('postalCode', 'ne', null),
  },
  {
    what: 'a date, as midnight UTC',
    text: "created_at >= '2026-01-01'",
    expected: cmp('createdAt', 'gte', '2026-01-01T00:00:00.000Z'),
  },
  {
    what: 'a date-time with an offset, in UTC',
    text: "updatedAt < '2026-03-04T05:06:07+02:00'",
    expected: cmp('updatedAt', 'lt', '2026-03-04T03:06:07.000Z'),
  },
  {
    what: 'timestamps in IN lists',
    text: "created_at in ('2026-01-01', '2026-01-02T10:00:00Z')",
    expected: cmp('createdAt', 'in', ['2026-01-01T00:00:00.000Z', '2026-01-02T10:00:00.000Z']),
  },
  {
    what: 'TRUE on a boolean field',
    text: 'active = TRUE',
    resource: products,
    expected: cmp('active', 'eq', true),
  },
  {
    what: 'false on a boolean field',
    text: 'active <> false',
    resource: products,
    expected: cmp('active', 'ne', false),
  },
  {
    what: 'ordering on an enum field, as text',
    text: "status > 'cancelled'",
    expected: cmp('status', 'gt', 'cancelled'),
  },
  { what: 'ordering on a text field', text: "currency <= 'USD'", expected: cmp('currency', 'lte', 'USD') },
  {
    what: 'a quoted whole number on an integer field',
    text: "amount = '1000'",
    expected: cmp('amount', 'eq', 1000),
  },
  {
    what: 'the largest safe integer',
    text: 'amount = 9007199254740991',
    expected: cmp('amount', 'eq', Number.MAX_SAFE_INTEGER),
  },
  { what: '-0 as 0', text: 'amount = -0', expected: cmp('amount', 'eq', 0) },
]
const nested = (depth: number) => `${'('.repeat(depth)}amount = 1${')'.repeat(depth)}`
const comparisons = (n: number) => Array.from({ length: n }, (_, i) => `amount = ${i}`).join(' or ')
const inList = (n: number) => `amount in (${Array.from({ length: n }, (_, i) => i).join(', ')})`

const limits: Valid[] = [
  {
    what: `${MAX_FILTER_DEPTH} levels of parentheses`,
    text: nested(MAX_FILTER_DEPTH),
    expected: cmp('amount', 'eq', 1),
  },
  {
    what: `${MAX_FILTER_DEPTH} levels of NOT`,
    text: `${'not '.repeat(MAX_FILTER_DEPTH)}amount = 1`,
    expected: Array.from({ length: MAX_FILTER_DEPTH }).reduce<Condition>(
      (c) => not(c),
      cmp('amount', 'eq', 1),
    ),
  },
  {
    what: `${MAX_FILTER_COMPARISONS} comparisons`,
    text: comparisons(MAX_FILTER_COMPARISONS),
    expected: or(...Array.from({ length: MAX_FILTER_COMPARISONS }, (_, i) => cmp('amount', 'eq', i))),
  },
  {
    what: `${MAX_IN_VALUES} values in IN`,
    text: inList(MAX_IN_VALUES),
    expected: cmp(
      'amount',
      'in',
      Array.from({ length: MAX_IN_VALUES }, (_, i) => i),
    ),
  },
  {
    what: 'a LIKE pattern with 5 wildcards',
    text: "email like '%a_b%c_d%'",
    resource: users,
    expected: cmp('email', 'like', '%a_b%c_d%'),
  },
  {
    what: 'escaped wildcards, which do not count',
    text: String.raw`email like '%\%\%\%\_\_%_%_'`,
    resource: users,
    expected: cmp('email', 'like', String.raw`%\%\%\%\_\_%_%_`),
  },
  {
    what: `a LIKE pattern of ${MAX_LIKE_LENGTH} characters`,
    text: `email like '${'a'.repeat(MAX_LIKE_LENGTH)}'`,
    resource: users,
    expected: cmp('email', 'like', 'a'.repeat(MAX_LIKE_LENGTH)),
  },
  {
    what: `an expression of ${MAX_FILTER_LENGTH} characters`,
    text: "currency = 'EUR'".padEnd(MAX_FILTER_LENGTH),
    expected: euro,
  },
]

interface Invalid {
  what: string
  text: string
  message: string
  resource?: Resource
}

const invalid: Invalid[] = [
  {
    what: 'an unknown field',
    text: 'foo = 1',
    message: `unknown field "foo" at 0 (allowed: ${ORDER_FIELDS})`,
  },
  {
    what: 'a field that is not filterable',
    text: "description = 'x'",
    resource: products,
    message:
      'unknown field "description" at 0 (allowed: id, sku, price, currency, active, created_at, updated_at, name)',
  },
  {
    what: 'an Object.prototype name',
    text: 'toString = 1',
    message: `unknown field "toString" at 0 (allowed: ${ORDER_FIELDS})`,
  },
  {
    what: '__proto__',
    text: "__proto__ = 'x'",
    message: `unknown field "__proto__" at 0 (allowed: ${ORDER_FIELDS})`,
  },
  {
    what: 'a field name in the wrong case',
    text: "STATUS = 'paid'",
    message: `unknown field "STATUS" at 0 (allowed: ${ORDER_FIELDS})`,
  },
  {
    what: 'an unknown field after a valid one',
    text: "status = 'paid' and colour = 'red'",
    message: `unknown field "colour" at 20 (allowed: ${ORDER_FIELDS})`,
  },
  { what: 'text for an integer', text: "amount = 'x'", message: 'amount: must be a whole number at 9' },
  { what: 'a fraction for an integer', text: 'amount = 1.5', message: 'amount: must be a whole number at 9' },
  {
    what: 'an unsafe integer',
    text: 'amount = 99999999999999999999',
    message: 'amount: must be a whole number at 9',
  },
  { what: 'TRUE for an integer', text: 'amount = true', message: 'amount: must be a whole number at 9' },
  {
    what: 'an unknown enum value',
    text: "status = 'bogus'",
    message: 'status: must be one of pending, paid, shipped, delivered, cancelled at 9',
  },
  {
    what: 'an unknown enum value in IN',
    text: "status in ('paid', 'bogus')",
    message: 'status: must be one of pending, paid, shipped, delivered, cancelled at 19',
  },
  { what: 'a number for a text field', text: 'currency = 12', message: 'currency: must be a string at 11' },
  {
    what: 'a text value over 500 characters',
    text: `currency = '${'a'.repeat(501)}'`,
    message: 'currency: must be at most 500 characters at 11',
  },
  {
    what: 'a timestamp that is not ISO 8601',
    text: "created_at > 'yesterday'",
    message: 'created_at: must be an ISO 8601 date or date-time at 13',
  },
  {
    what: 'an impossible date',
    text: "created_at > '2026-13-45'",
    message: 'created_at: must be an ISO 8601 date or date-time at 13',
  },
  {
    what: 'a number for a timestamp',
    text: 'created_at > 20260101',
    message: 'created_at: must be an ISO 8601 date or date-time at 13',
  },
  {
    what: 'text for a boolean',
    text: "active = 'yes'",
    resource: products,
    message: 'active: must be true or false at 9',
  },
  {
    what: 'an unclosed parenthesis',
    text: "(status = 'paid'",
    message: "unexpected end of expression at 16 (expected ')', AND or OR)",
  },
  {
    what: 'an extra closing parenthesis',
    text: "status = 'paid')",
    message: "unexpected ')' at 15 (expected AND, OR or end of expression)",
  },
  {
    what: 'empty parentheses',
    text: '()',
    message: "unexpected ')' at 1 (expected a field name, NOT or '(')",
  },
  {
    what: 'a trailing comparison without AND/OR',
    text: "status = 'paid' amount = 1",
    message: 'unexpected "amount" at 16 (expected AND, OR or end of expression)',
  },
  {
    what: 'a trailing value',
    text: "status = 'paid' 'x'",
    message: 'unexpected string at 16 (expected AND, OR or end of expression)',
  },
  {
    what: 'a dangling AND',
    text: "status = 'paid' and",
    message: "unexpected end of expression at 19 (expected a field name, NOT or '(')",
  },
  {
    what: 'a leading OR',
    text: "or status = 'paid'",
    message: "unexpected 'or' at 0 (expected a field name, NOT or '(')",
  },
  {
    what: 'a keyword as a field',
    text: 'and = 1',
    message: "unexpected 'and' at 0 (expected a field name, NOT or '(')",
  },
  { what: 'an empty expression', text: '', message: 'empty expression' },
  { what: 'only white space', text: ' \t\n ', message: 'empty expression' },
  {
    what: 'a field alone',
    text: 'amount',
    message: 'unexpected end of expression at 6 (expected an operator, IN, LIKE or IS)',
  },
  {
    what: 'a missing operator',
    text: 'amount 5',
    message: 'unexpected number 5 at 7 (expected an operator, IN, LIKE or IS)',
  },
  {
    what: 'a missing value',
    text: 'amount =',
    message: 'unexpected end of expression at 8 (expected a value)',
  },
  { what: '==', text: 'amount == 1', message: "unexpected '=' at 8 (expected a value)" },
  {
    what: 'an unquoted text value',
    text: 'status = paid',
    message: `unexpected "paid" at 9 (expected a value; quote text as in 'paid')`,
  },
  {
    what: 'NOT before an operator',
    text: "status not = 'paid'",
    message: "unexpected '=' at 11 (expected IN or LIKE after NOT)",
  },
  {
    what: 'IS without NULL',
    text: "postal_code is 'x'",
    resource: addresses,
    message: 'unexpected string at 15 (expected NULL)',
  },
  { what: '&&', text: "status = 'paid' && amount = 1", message: "unexpected character '&' at 16" },
  { what: 'a semicolon', text: 'amount = 1;', message: "unexpected character ';' at 10" },
  { what: 'a control character', text: 'amount = 1\u0000', message: 'unexpected character U+0000 at 10' },
  {
    what: 'a non-ASCII character outside strings',
    text: 'amount = 1 ∧ amount = 2',
    message: 'unexpected character U+2227 at 11',
  },
  { what: 'a lone !', text: 'amount ! 1', message: "unexpected character '!' at 7" },
  { what: 'a number ending in a dot', text: 'amount = 1.', message: "expected a digit after '.' at 11" },
  { what: 'a number with two dots', text: 'amount = 1.2.3', message: 'malformed number at 9' },
  {
    what: 'a number running into a word',
    text: 'amount = 10and amount = 1',
    message: 'malformed number at 9',
  },
  { what: 'a double minus', text: 'amount = --1', message: "unexpected character '-' at 9" },
  {
    what: "an unterminated '…' string",
    text: "status = 'paid",
    message: 'unterminated string starting at 9',
  },
  {
    what: 'an unterminated "…" string',
    text: 'status = "paid',
    message: 'unterminated string starting at 9',
  },
  {
    what: 'a string ending in an escaped quote',
    text: String.raw`status = 'paid\'`,
    message: 'unterminated string starting at 9',
  },
  {
    what: 'a string ending in a lone backslash',
    text: "status = 'paid\\",
    message: 'unterminated string starting at 9',
  },
  {
    what: 'an unknown escape',
    text: String.raw`currency = 'a\nb'`,
    message: String.raw`backslash before 'n' at 13 (escapes: \\ \' \" \% \_)`,
  },
  {
    what: 'an expression over the length limit',
    text: "currency = 'EUR'".padEnd(MAX_FILTER_LENGTH + 1),
    message: `longer than ${MAX_FILTER_LENGTH} characters (${MAX_FILTER_LENGTH + 1})`,
  },
  {
    what: 'parentheses nested too deep',
    text: nested(MAX_FILTER_DEPTH + 1),
    message: `nesting deeper than ${MAX_FILTER_DEPTH} levels at ${MAX_FILTER_DEPTH}`,
  },
  {
    what: 'NOT nested too deep',
    text: `${'not '.repeat(MAX_FILTER_DEPTH + 1)}amount = 1`,
    message: `nesting deeper than ${MAX_FILTER_DEPTH} levels at ${MAX_FILTER_DEPTH * 4}`,
  },
  {
    what: 'NOT and parentheses nested too deep together',
    text: `${'not ('.repeat(9)}amount = 1${')'.repeat(9)}`,
    message: `nesting deeper than ${MAX_FILTER_DEPTH} levels at 40`,
  },
  {
    what: '10,000 opening parentheses',
    text: '('.repeat(10_000),
    message: `longer than ${MAX_FILTER_LENGTH} characters (10000)`,
  },
  {
    what: 'too many comparisons',
    text: comparisons(MAX_FILTER_COMPARISONS + 1),
    message: `more than ${MAX_FILTER_COMPARISONS} comparisons at ${comparisons(MAX_FILTER_COMPARISONS).length + 4}`,
  },
  {
    what: 'an IN list over the limit',
    text: inList(MAX_IN_VALUES + 1),
    message: `more than ${MAX_IN_VALUES} values in IN at ${inList(MAX_IN_VALUES).length - 1 + 2}`,
  },
  { what: 'an empty IN list', text: 'amount in ()', message: "unexpected ')' at 11 (expected a value)" },
  {
    what: 'IN without parentheses',
    text: "status in 'paid'",
    message: "unexpected string at 10 (expected '(' after IN)",
  },
  {
    what: 'an unclosed IN list',
    text: "status in ('paid'",
    message: "unexpected end of expression at 17 (expected ',' or ')')",
  },
  {
    what: 'NULL in an IN list',
    text: "postal_code in ('1', null)",
    resource: addresses,
    message: 'NULL in an IN list at 21 (use IS NULL)',
  },
  {
    what: 'IN on a boolean field',
    text: 'active in (true)',
    resource: products,
    message: 'active: IN does not apply to true/false fields at 11 (use =)',
  },
  {
    what: 'a LIKE pattern with too many wildcards',
    text: "email like '%a%b%c%d%e%'",
    resource: users,
    message: 'email: LIKE pattern has more than 5 wildcards (% or _) at 11',
  },
  {
    what: 'a LIKE pattern with too many _',
    text: "email like '______'",
    resource: users,
    message: 'email: LIKE pattern has more than 5 wildcards (% or _) at 11',
  },
  {
    what: 'a LIKE pattern that is too long',
    text: `email like '${'a'.repeat(MAX_LIKE_LENGTH + 1)}'`,
    resource: users,
    message: `email: LIKE pattern is longer than ${MAX_LIKE_LENGTH} characters at 11`,
  },
  {
    what: 'a LIKE pattern ending in an escape',
    text: String.raw`email like 'a\\'`,
    resource: users,
    message: 'email: LIKE pattern ends with an escaping backslash at 11',
  },
  {
    what: 'LIKE on an integer field',
    text: "amount like '1%'",
    message: 'amount: LIKE applies to text fields only at 7',
  },
  {
    what: 'LIKE on a timestamp field',
    text: "created_at like '2026%'",
    message: 'created_at: LIKE applies to text fields only at 11',
  },
  {
    what: 'LIKE with a number',
    text: 'email like 5',
    resource: users,
    message: 'unexpected number 5 at 11 (expected a quoted pattern after LIKE)',
  },
  {
    what: 'ordering on a boolean field',
    text: 'active < true',
    resource: products,
    message: "active: '<' does not apply to true/false fields at 9",
  },
  {
    what: '>= on a boolean field',
    text: 'active >= false',
    resource: products,
    message: "active: '>=' does not apply to true/false fields at 10",
  },
  { what: '= NULL on a non-nullable field', text: 'amount = null', message: 'amount: is never NULL at 9' },
  { what: '!= NULL on a non-nullable field', text: 'amount != NULL', message: 'amount: is never NULL at 10' },
  { what: 'IS NULL on a non-nullable field', text: 'status is null', message: 'status: is never NULL at 10' },
  {
    what: 'IS NOT NULL on a non-nullable field',
    text: 'created_at IS NOT NULL',
    message: 'created_at: is never NULL at 18',
  },
  {
    what: 'ordering with NULL',
    text: 'postal_code < null',
    resource: addresses,
    message: "'<' cannot compare with NULL at 14",
  },
]

/** The error a filter expression is refused with; fails the test if it is anything else. */
function refusal(resource: Resource, text: string): ApiError {
  try {
    parseFilterExpression(SCHEMA, resource, text)
  } catch (error) {
    if (error instanceof ApiError) return error
    throw new Error(`threw something other than an ApiError: ${String(error)}`)
  }
  throw new Error(`accepted ${JSON.stringify(text)}`)
}

describe('parseFilterExpression', () => {
  for (const { what, text, expected, resource = orders } of [...valid, ...limits]) {
    it(`parses ${what}`, () => {
      expect(parseFilterExpression(SCHEMA, resource, text)).toEqual(expected)
    })
  }

  for (const { what, text, message, resource = orders } of invalid) {
    it(`refuses ${what} with 400 and one detail on filter`, () => {
      const error = refusal(resource, text)
      expect(error.code).toBe('BAD_REQUEST')
      expect(error.status).toBe(400)
      expect(error.details).toEqual([{ field: 'filter', message }])
      expect(error.message).toBe(`The filter expression is not valid: ${message}.`)
    })
  }

  it('refuses a value that is not a string (a JSON body may carry anything)', () => {
    const untyped: unknown = 42
    const error = refusal(orders, untyped as string) // deliberately wrong type: callers outside TS
    expect(error.details).toEqual([{ field: 'filter', message: 'must be a string' }])
  })

  it('cuts long names short in messages', () => {
    const error = refusal(orders, `${'x'.repeat(500)} = 1`)
    expect(error.details[0]!.message).toStartWith(`unknown field "${'x'.repeat(40)}…" at 0`)
  })
})
