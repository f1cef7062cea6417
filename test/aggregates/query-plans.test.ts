import { afterAll, describe, expect, it } from 'bun:test'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { groupableKeys, parseAggregateParams } from '../../shared/query/aggregate-params.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { expectIndexed, spied } from '../support/query-plans.ts'

/**
 * An aggregate is one SQL statement on the organization's index (docs/bulk.md, "Aggregates"): for
 * every collection of the example and every key it groups by, with and without the list's filters.
 */

const SCHEMA = exampleSchema()
const db = openDatabase(':memory:')
await migrateDatabase(db, SCHEMA)
afterAll(() => db.close())

async function planOf(collection: string, query: string) {
  const resource = SCHEMA.byName(collection)!
  const { query: parsed } = parseAggregateParams(SCHEMA, resource, new URLSearchParams(query))
  const spy = spied(db)
  await sqliteStore(spy.db, SCHEMA).records.aggregate(resource, 'org_plan', {
    where: parsed.where,
    search: parsed.search,
    groupBy: parsed.groupBy,
    aggregates: parsed.aggregates,
    sort: parsed.groupBy.map((_, index) => ({ kind: 'group' as const, index, descending: false })),
    limit: 21,
    includeTotal: true,
  })
  expect(spy.statements).toHaveLength(1)
  const { sql, params } = spy.statements[0]!
  const rows = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as string[])) as { detail: string }[]
  // The groups themselves (a derived table) are read whole to be ordered and paged: the records
  // under them are what must be read through an index.
  return { sql, plan: rows.map((r) => r.detail).filter((d) => !/^SCAN (\(subquery-\d+\)|groups)$/.test(d)) }
}

describe('aggregates on SQLite', () => {
  for (const resource of SCHEMA.resources) {
    it(`${resource.name}: every group key, in one statement on an index`, async () => {
      for (const key of groupableKeys(resource))
        expectIndexed(await planOf(resource.name, `group_by=${key}&aggregate=count`))
    })
  }

  it('counts orders by status among the paid and shipped ones, and by day since a date, on indexes', async () => {
    expectIndexed(await planOf('orders', 'group_by=status&status=paid,shipped&aggregate=count,sum(amount)'))
    expectIndexed(
      await planOf('orders', 'group_by=created_at:day&created_after=2026-01-01&aggregate=count,avg(amount)'),
    )
    expectIndexed(await planOf('products', 'q=lamp&aggregate=count,max(price)'))
  })
})
