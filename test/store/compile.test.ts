import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { afterKeys, compileCondition, whereClause } from '../../server/store/compile.ts'
import { type Dialect, MAX_SEARCH_TERMS, Params } from '../../server/store/dialect.ts'
import { POSTGRES, tsQuery } from '../../server/store/postgres/dialect.ts'
import { ftsMatch, SQLITE } from '../../server/store/sqlite/dialect.ts'
import type { Condition } from '../../shared/query/types.ts'
import { example } from '../support/example.ts'

const orders = example('orders')
const products = example('products')

/** The SQL of a condition and what it binds, in one dialect. */
function compiled(dialect: Dialect, condition: Condition) {
  const params = new Params(dialect)
  return { text: compileCondition(orders, condition, params), values: params.values }
}

const paid: Condition = { kind: 'compare', field: 'status', op: 'eq', value: 'paid' }
const inList: Condition = { kind: 'compare', field: 'status', op: 'in', value: ['paid', 'shipped'] }

describe('compile.ts in both dialects', () => {
  const cases: [string, Condition, { sqlite: string; postgres: string; values: unknown[] }][] = [
    ['a comparison', paid, { sqlite: 'status = ?', postgres: 'status = $1', values: ['paid'] }],
    [
      'a list of values: many placeholders in SQLite, one array in PostgreSQL',
      inList,
      { sqlite: 'status IN (?, ?)', postgres: 'status = ANY($1)', values: ['paid', 'shipped'] },
    ],
    [
      'LIKE ignoring ASCII case',
      { kind: 'compare', field: 'currency', op: 'like', value: 'e%' },
      { sqlite: "currency LIKE ? ESCAPE '\\'", postgres: "currency ILIKE $1 ESCAPE '\\'", values: ['e%'] },
    ],
    [
      'an empty and, an empty or, an empty list',
      {
        kind: 'and',
        conditions: [
          { kind: 'and', conditions: [] },
          { kind: 'or', conditions: [] },
          { kind: 'compare', field: 'status', op: 'in', value: [] },
        ],
      },
      { sqlite: '(1 AND 0 AND 0)', postgres: '(TRUE AND FALSE AND FALSE)', values: [] },
    ],
    [
      'null and not',
      { kind: 'not', condition: { kind: 'compare', field: 'userId', op: 'ne', value: null } },
      { sqlite: '(NOT user_id IS NOT NULL)', postgres: '(NOT user_id IS NOT NULL)', values: [] },
    ],
  ]
  for (const [name, condition, expected] of cases) {
    it(`compiles ${name}`, () => {
      const sqlite = compiled(SQLITE, condition)
      const postgres = compiled(POSTGRES, condition)
      expect(sqlite.text).toBe(expected.sqlite)
      expect(postgres.text).toBe(expected.postgres)
      expect(sqlite.values as unknown[]).toEqual(expected.values)
      // PostgreSQL binds a list as one array parameter.
      expect((postgres.values as unknown[]).flat()).toEqual(expected.values)
    })
  }

  it('numbers the placeholders of a whole page in the order of their values', () => {
    const params = new Params(POSTGRES)
    const where = whereClause(orders, 'org_1', [paid, inList], 'blue wid', params)
    const after = afterKeys(
      orders,
      [
        { field: 'amount', descending: true },
        { field: 'id', descending: false },
      ],
      [4200, 'ord_1'],
      params,
    )
    expect(where).toBe(
      "org_id = $1 AND status = $2 AND status = ANY($3) AND search_vector @@ to_tsquery('simple', api_unaccent($4))",
    )
    expect(after).toBe('((amount < $5) OR (amount = $6 AND id > $7))')
    expect(params.values).toEqual(['org_1', 'paid', ['paid', 'shipped'], 'blue & wid:*', 4200, 4200, 'ord_1'])
  })

  it('keeps the SQLite text of today: the full-text MATCH through the rowid', () => {
    const params = new Params(SQLITE)
    expect(whereClause(products, 'org_1', [], 'wid', params)).toBe(
      'org_id = ? AND rowid IN (SELECT rowid FROM products_fts WHERE products_fts MATCH ?)',
    )
    expect(params.values).toEqual(['org_1', '"wid"*'])
  })

  it('matches nothing for a search without a word, in both dialects', () => {
    expect(whereClause(products, 'o', [], ' -- " * ', new Params(SQLITE))).toBe('org_id = ? AND 0')
    expect(whereClause(products, 'o', [], ' -- " * ', new Params(POSTGRES))).toBe('org_id = $1 AND FALSE')
  })
})

describe('search words', () => {
  it('become a prefix query of at most MAX_SEARCH_TERMS words, no syntax passing through', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const fts = ftsMatch(text)
        const ts = tsQuery(text)
        expect(fts === null).toBe(ts === null)
        if (ts === null) return
        const terms = ts.split(' & ')
        expect(terms.length).toBeLessThanOrEqual(MAX_SEARCH_TERMS)
        expect(terms.at(-1)!.endsWith(':*')).toBe(true)
        for (const term of terms) expect(term.replace(/:\*$/, '')).toMatch(/^[\p{L}\p{N}_]+$/u)
        // The same words in both dialects, in the same order.
        expect(fts!.replaceAll('"', '').replace(/\*$/, '').split(' ')).toEqual(
          terms.map((t) => t.replace(/:\*$/, '')),
        )
      }),
    )
  })
})

describe('placeholders', () => {
  const field = fc.constantFrom('status', 'currency', 'userId', 'amount', 'createdAt', 'id')
  const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null))
  const compare: fc.Arbitrary<Condition> = fc.record({
    kind: fc.constant('compare' as const),
    field,
    op: fc.constantFrom('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'like' as const),
    value,
  })
  const list: fc.Arbitrary<Condition> = fc.record({
    kind: fc.constant('compare' as const),
    field,
    op: fc.constant('in' as const),
    value: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 5 }),
  })
  const { tree } = fc.letrec<{ tree: Condition }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      compare,
      list,
      fc.record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        conditions: fc.array(tie('tree'), { maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('not' as const), condition: tie('tree') }),
    ),
  }))

  it('stand for the bound values one to one, numbered $1..$n in PostgreSQL', () => {
    fc.assert(
      fc.property(tree, (condition) => {
        const sqlite = compiled(SQLITE, condition)
        const postgres = compiled(POSTGRES, condition)
        expect(sqlite.text.split('?').length - 1).toBe(sqlite.values.length)
        const numbers = [...postgres.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
        expect(numbers).toEqual(postgres.values.map((_, i) => i + 1))
        // One array parameter per list: the same values, fewer parameters.
        expect((postgres.values as unknown[]).flat()).toEqual(sqlite.values)
      }),
    )
  })
})

describe('booleans', () => {
  it('bind as 0 and 1 in SQLite and as true and false in PostgreSQL, conditions and cursors alike', () => {
    const condition: Condition = { kind: 'compare', field: 'active', op: 'eq', value: true }
    const keys = [
      { field: 'active', descending: true },
      { field: 'id', descending: true },
    ]
    for (const [dialect, yes] of [
      [SQLITE, 1],
      [POSTGRES, true],
    ] as const) {
      const params = new Params(dialect)
      compileCondition(products, condition, params)
      afterKeys(products, keys, [1, 'prd_1'], params)
      expect(params.values as unknown[]).toEqual([yes, yes, 'prd_1'])
    }
  })
})
