import { afterAll, describe, expect, it } from 'bun:test'
import type { Principal } from '../../server/auth/tokens.ts'
import { CursorCodec } from '../../server/resources/cursor.ts'
import { listRecords } from '../../server/resources/reads.ts'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import type { PageRequest, SortValue } from '../../server/store/types.ts'
import type { Condition, ListQuery, SortKey } from '../../shared/query/types.ts'
import { exampleSchema, type Resource } from '../../shared/resources/index.ts'
import { expectIndexed, type Statement, spied } from '../support/query-plans.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

const db = openDatabase(':memory:')
await migrateDatabase(db, exampleSchema())
afterAll(() => db.close())

/** The SQL selectPage runs for `request`, and SQLite's plan for it, one detail per line. */
async function planOf(
  resource: Resource,
  request: Partial<PageRequest>,
): Promise<{ sql: string; plan: string[] }> {
  const spy = spied(db)
  await sqliteStore(spy.db, exampleSchema()).records.page(resource, 'org_plan', {
    where: [],
    sort: DEFAULT,
    limit: 21,
    ...request,
  })
  expect(spy.statements).toHaveLength(1)
  const { sql, params } = spy.statements[0]!
  const rows = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as SortValue[])) as { detail: string }[]
  return { sql, plan: rows.map((r) => r.detail) }
}

const DEFAULT: SortKey[] = [{ field: 'createdAt', descending: true }]
function expectNoSort({ sql, plan }: { sql: string; plan: string[] }) {
  expect({ sql, plan: plan.filter((d) => d.includes('TEMP B-TREE')) }).toEqual({ sql, plan: [] })
}

/** A value of the field's kind, as the engine hands it to the store. */
function sample(resource: Resource, name: string): string | number | boolean {
  const field = resource.fields[name]!
  if (field.kind === 'integer') return 1
  if (field.kind === 'boolean') return true
  if (field.kind === 'enum') return field.values![0]!
  if (field.kind === 'reference') return `${field.references!.slice(0, 3)}_01jd3v0m7qf8s9t2w4x6y8z0ab`
  return 'x'
}

/** The sort values of a last row, for the keyset condition of a next page (the keys end with id). */
const afterValues = (sort: SortKey[]) => [...sort.map(() => 'm'), `x_01jd3v0m7qf8s9t2w4x6y8z0ab`]

const eq = (resource: Resource, field: string): Condition => ({
  kind: 'compare',
  field,
  op: 'eq',
  value: sample(resource, field),
})

for (const resource of SCHEMA.resources) {
  describe(`query plans of ${resource.name}`, () => {
    it('lists by the default sort through an index, without sorting, on the first and next pages', async () => {
      for (const after of [undefined, afterValues(DEFAULT)]) {
        const plan = await planOf(resource, { after })
        expectIndexed(plan)
        expectNoSort(plan)
      }
    })

    const equalities = resource.filterable.filter((name) => resource.fields[name]!.filter !== 'range')
    for (const name of equalities) {
      const label =
        name === resource.parent?.field ? 'the nested parent filter' : `the equality filter ${name}`
      it(`serves ${label} with the default sort through an index, without sorting`, async () => {
        for (const after of [undefined, afterValues(DEFAULT)]) {
          const plan = await planOf(resource, { where: [eq(resource, name)], after })
          expectIndexed(plan)
          expectNoSort(plan)
        }
      })
    }

    for (const field of resource.sortable) {
      for (const descending of [false, true]) {
        it(`sorts by ${descending ? '-' : ''}${field} through an index, without sorting`, async () => {
          const sort = [{ field, descending }]
          for (const after of [undefined, afterValues(sort)]) {
            const plan = await planOf(resource, { sort, after })
            expectIndexed(plan)
            expectNoSort(plan)
          }
        })
      }
    }

    if (resource.searchable.length > 0) {
      it('searches (q) through the FTS5 index and an index of the table', async () => {
        expectIndexed(await planOf(resource, { search: 'word' }))
      })
    }
  })
}

describe('counting', () => {
  const principal: Principal = {
    kind: 'client',
    subject: 'client',
    orgId: 'org_plan',
    clientId: 'client',
    scopes: new Set(SCHEMA.scopes),
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
  }
  const pages: ListQuery['page'][] = [
    { style: 'cursor', limit: 20 },
    { style: 'page', limit: 20, page: 1 },
    { style: 'offset', limit: 20, offset: 0 },
  ]
  const counts = (statements: Statement[]) => statements.filter((s) => /\bcount\s*\(/i.test(s.sql))

  for (const resource of SCHEMA.resources) {
    it(`runs no count( for a plain list of ${resource.name}, and exactly one with include_total`, async () => {
      for (const page of pages) {
        for (const includeTotal of [false, true]) {
          const spy = spied(db)
          const ctx = {
            schema: exampleSchema(),
            store: sqliteStore(spy.db, exampleSchema()),
            clock: Date.now,
            cursors: new CursorCodec(new Uint8Array(32)),
          }
          const query: ListQuery = { where: [], sort: DEFAULT, page, includeTotal }
          await listRecords(ctx, principal, resource, query)
          expect(spy.statements.length).toBeGreaterThan(0)
          expect(counts(spy.statements)).toHaveLength(includeTotal ? 1 : 0)
        }
      }
    })
  }
})
