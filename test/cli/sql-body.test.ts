/** How `api query --sql --limit` reads a SELECT to add its page size (property tests). */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { sqlShape, withSqlLimit } from '../../cli/sql-body.ts'

const column = fc.constantFrom('id', 'amount', 'status', 'created_at', 'orders.user_id')
const condition = fc.constantFrom(
  "status = 'paid'",
  'amount >= 10',
  "status IN ('paid', 'shipped')",
  'amount IS NULL',
)
const select = fc.record({
  columns: fc.oneof(fc.constant(['*']), fc.uniqueArray(column, { minLength: 1, maxLength: 4 })),
  where: fc.option(condition, { nil: undefined }),
  order: fc.option(fc.constantFrom('amount DESC', 'created_at', 'status, amount'), { nil: undefined }),
  tail: fc.constantFrom('', ';', ' ; ', '\n', ' -- LIMIT 5 in a comment', '\n/* LIMIT 9 */\n', '; -- done'),
  lead: fc.constantFrom('', ' ', '-- paid ones\n', '/* x */ '),
})

describe('sqlShape and withSqlLimit', () => {
  it('add LIMIT n as a clause of the statement, keeping every other character', () => {
    fc.assert(
      fc.property(select, fc.integer({ min: 1, max: 100 }), (q, n) => {
        const statement = `SELECT ${q.columns.join(', ')} FROM orders${q.where ? ` WHERE ${q.where}` : ''}${q.order ? ` ORDER BY ${q.order}` : ''}`
        const text = `${q.lead}${statement}${q.tail}`
        const shape = sqlShape(text)!
        expect(shape).toMatchObject({ columnList: q.columns[0] !== '*', hasLimit: false, hasOffset: false })
        const limited = withSqlLimit(text, shape, n)
        expect(limited).toBe(`${q.lead}${statement} LIMIT ${n}${q.tail}`)
        expect(sqlShape(limited)).toMatchObject({
          hasLimit: true,
          hasOffset: false,
          columnList: shape.columnList,
        })
      }),
    )
  })

  it('sees LIMIT and OFFSET where the statement has them, not in comments', () => {
    expect(sqlShape('SELECT * FROM orders LIMIT 5 OFFSET 10')).toMatchObject({
      hasLimit: true,
      hasOffset: true,
    })
    expect(sqlShape('SELECT * FROM orders -- LIMIT 5')).toMatchObject({ hasLimit: false })
  })

  it('gives up (null, the text sent as it is) on anything but one SELECT, and never throws', () => {
    expect(sqlShape('SELECT 1; SELECT 2')).toBeNull()
    expect(sqlShape('DELETE FROM orders')).toBeNull()
    fc.assert(
      fc.property(fc.string(), (text) => {
        const shape = sqlShape(text)
        if (shape) expect(shape.end).toBeLessThanOrEqual(text.length)
      }),
    )
  })
})
