import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { query as localQuery } from 'json-p3'
import type { Entity } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { JSONPATH, queryPage, SQL, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant
let orders: Entity[]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  orders = (await seedOrders(acme)).orders
})
afterAll(() => server.stop())

type Field = 'status' | 'amount' | 'currency'
type Op = '=' | '!=' | '<' | '<=' | '>' | '>='
type Expr =
  | { kind: 'cmp'; field: Field; op: Op; value: string | number }
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; expr: Expr }
  | { kind: 'match'; pattern: string }

const VALUES: Record<Field, fc.Arbitrary<string | number>> = {
  status: fc.constantFrom('pending', 'paid', 'shipped', 'delivered', 'cancelled'),
  amount: fc.constantFrom(0, 50, 100, 249, 250, 251, 400, 999, 1000),
  currency: fc.constantFrom('EUR', 'USD', 'GBP', 'JPY'),
}

const comparison: fc.Arbitrary<Expr> = fc.constantFrom<Field>('status', 'amount', 'currency').chain((field) =>
  fc.record({
    kind: fc.constant('cmp' as const),
    field: fc.constant(field),
    op: fc.constantFrom<Op>('=', '!=', '<', '<=', '>', '>='),
    value: VALUES[field],
  }),
)

const expression = (withRegex: boolean) =>
  fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'expr' },
      withRegex
        ? fc.oneof(
            comparison,
            fc.record({
              kind: fc.constant('match' as const),
              pattern: fc.constantFrom('E.*', 'U.D', '[GJ].*'),
            }),
          )
        : comparison,
      fc.record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        left: tie('expr'),
        right: tie('expr'),
      }),
      fc.record({ kind: fc.constant('not' as const), expr: tie('expr') }),
    ),
  })).expr

const literal = (v: string | number) => (typeof v === 'string' ? `'${v}'` : String(v))

function toSql(e: Expr): string {
  switch (e.kind) {
    case 'cmp':
      return `${e.field} ${e.op} ${literal(e.value)}`
    case 'and':
    case 'or':
      return `(${toSql(e.left)} ${e.kind.toUpperCase()} ${toSql(e.right)})`
    case 'not':
      return `NOT (${toSql(e.expr)})`
    case 'match':
      throw new Error('no regex in SQL')
  }
}

function toJsonPath(e: Expr): string {
  switch (e.kind) {
    case 'cmp':
      return `@.${e.field} ${e.op === '=' ? '==' : e.op} ${literal(e.value)}`
    case 'and':
      return `(${toJsonPath(e.left)} && ${toJsonPath(e.right)})`
    case 'or':
      return `(${toJsonPath(e.left)} || ${toJsonPath(e.right)})`
    case 'not':
      return `!(${toJsonPath(e.expr)})`
    case 'match':
      return `match(@.currency, '${e.pattern}')`
  }
}

function holds(e: Expr, o: Entity): boolean {
  switch (e.kind) {
    case 'cmp': {
      const a = o[e.field] as string | number
      const b = e.value
      return { '=': a === b, '!=': a !== b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[e.op]
    }
    case 'and':
      return holds(e.left, o) && holds(e.right, o)
    case 'or':
      return holds(e.left, o) || holds(e.right, o)
    case 'not':
      return !holds(e.expr, o)
    case 'match':
      return new RegExp(`^(?:${e.pattern})$`).test(o.currency as string)
  }
}

describe('generated WHERE clauses and JSONPath filters (fast-check)', () => {
  it('application/sql selects exactly the records the WHERE clause holds for, in order', async () => {
    await fc.assert(
      fc.asyncProperty(expression(false), async (e) => {
        const page = await queryPage(
          acme,
          '/api/v1/orders',
          SQL,
          `SELECT id FROM orders WHERE ${toSql(e)} LIMIT 100`,
        )
        expect(page.data.map((r) => r.id)).toEqual(orders.filter((o) => holds(e, o)).map((o) => o.id))
      }),
      { numRuns: 120 },
    )
  })

  it('application/jsonpath gives what RFC 9535 (json-p3 in memory) gives, whether pushed down to SQL or not', async () => {
    await fc.assert(
      fc.asyncProperty(expression(true), async (e) => {
        const path = `$[?${toJsonPath(e)}].id`
        const page = await queryPage<string>(acme, '/api/v1/orders?limit=100', JSONPATH, path)
        const expected = localQuery(path, orders as never).values()
        expect(page.data).toEqual(expected as string[])
        expect(page.data).toEqual(orders.filter((o) => holds(e, o)).map((o) => o.id))
      }),
      { numRuns: 120 },
    )
  })
})
