import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { migratePostgres } from '../../../server/store/postgres/migrate.ts'
import { STAMP_SQL } from '../../../server/store/postgres/store.ts'
import { exampleSchema } from '../../../shared/resources/index.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../../support/postgres.ts'

// The response cache reads an organization's stamp (its newest event position) before every
// cached answer: it must come from the end of the index events (org_id, seq), whatever the
// statistics say and wherever the organization's events lie in the log.

if (!postgresAvailable())
  console.warn('PostgreSQL is not installed here: the stamp plan test is skipped (Debian: postgresql)')

const describeWithPostgres = postgresAvailable() ? describe : describe.skip

describeWithPostgres("an organization's stamp on PostgreSQL", () => {
  let postgres: TestPostgres
  let sql: SQL

  beforeAll(async () => {
    postgres = await startTestPostgres()
    sql = new SQL(await postgres.database('stamp_plan'), { max: 1 })
    await migratePostgres(sql, exampleSchema())
    await sql.unsafe(
      "INSERT INTO orgs (id, name, created_at, updated_at) SELECT 'org_' || g, 'Org', '2026-01-01', '2026-01-01' FROM generate_series(1, 10) g",
    )
    // org_1's 10,000 events come first, then 90,000 of the others: its newest is far from the log's end.
    await sql.unsafe(
      `INSERT INTO events (id, org_id, type, resource, resource_id, data, created_at, updated_at)
       SELECT 'evt_' || g, 'org_' || (g / 10000 + 1), 'order.created', 'orders', 'ord_' || g, '{}',
         '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
       FROM generate_series(0, 99999) g`,
    )
    await sql.unsafe('ANALYZE events')
  })

  afterAll(async () => {
    await sql?.close()
    await postgres?.stop()
  })

  const numbered = (text: string) => {
    let n = 0
    return text.replace(/\?/g, () => `$${++n}`)
  }

  it('is the newest position of that organization', async () => {
    for (const [org, newest] of [
      ['org_1', 9_999],
      ['org_10', 99_999],
    ] as const) {
      const [row] = await sql.unsafe(numbered(STAMP_SQL), [org, org])
      const [{ seq }] = await sql.unsafe("SELECT seq FROM events WHERE id = 'evt_' || $1", [String(newest)])
      expect(Number(row.seq)).toBe(Number(seq))
    }
  })

  it('reads one entry from the end of events (org_id, seq), never the whole log', async () => {
    const plan = (
      await sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${STAMP_SQL.replace(/\?/g, "'org_1'")}`)
    )[0]['QUERY PLAN'][0].Plan
    const scan = plan.Plans[0]
    expect(scan['Index Name']).toBe('events_org_seq')
    expect(scan['Scan Direction']).toBe('Backward')
    expect(scan['Actual Rows']).toBe(1)
  })
})
