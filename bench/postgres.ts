/**
 * The PostgreSQL side of `npm run bench -- --postgres`: a throwaway PostgreSQL 15 (Debian's, as
 * the tests start it) holding the same organizations, users, orders and events as the SQLite
 * benchmark database, copied row by row (they were written through the engine), and a client of
 * the first organization.
 */
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { openStore } from '../server/store/open.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { startTestPostgres, type TestPostgres } from '../test/support/postgres.ts'
import type { BenchTenant } from './build-database.ts'

const TABLES = ['orgs', 'users', 'orders', 'events'] as const
const BATCH = 1_000

/** Copies the tables the benchmark reads; events in log order, so their positions keep it. */
async function copyRows(from: string, to: SQL): Promise<void> {
  const db = new Database(from, { readonly: true })
  try {
    for (const table of TABLES) {
      for (let offset = 0; ; offset += BATCH) {
        const rows = db
          .query(`SELECT * FROM ${table} ORDER BY rowid LIMIT ? OFFSET ?`)
          .all(BATCH, offset) as Record<string, unknown>[]
        if (rows.length === 0) break
        const columns = Object.keys(rows[0]!)
        const values: unknown[] = []
        const tuples = rows.map((row) => {
          const marks = columns.map((c) => {
            values.push(row[c])
            return `$${values.length}`
          })
          return `(${marks.join(', ')})`
        })
        await to.unsafe(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values)
      }
    }
  } finally {
    db.close()
  }
}

/** PostgreSQL with the benchmark's data; `url` for `--db`, and the tenant the requests act as. */
export async function postgresBench(
  sqlitePath: string,
  sampleSize: number,
  log: (line: string) => void,
): Promise<{ postgres: TestPostgres; url: string; tenant: BenchTenant }> {
  const postgres = await startTestPostgres()
  const url = await postgres.database('bench')
  const started = performance.now()
  const store = openStore(url, exampleSchema())
  try {
    await store.migrate()
    const sql = new SQL(url, { max: 1 })
    try {
      await copyRows(sqlitePath, sql)
      await sql`ANALYZE`
      const [first] = await sql`SELECT id FROM orgs ORDER BY created_at, id LIMIT 1`
      const orgId = first.id as string
      const { client, secret } = await store.clients.create({
        name: 'bench',
        orgId,
        public: false,
        scope: ['read:orders'],
      })
      const sample =
        await sql`SELECT id FROM orders WHERE org_id = ${orgId} ORDER BY random() LIMIT ${sampleSize}`
      log(
        `copied the benchmark data into PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      )
      return {
        postgres,
        url,
        tenant: {
          orgId,
          clientId: client.id,
          clientSecret: secret!,
          orderIds: [...sample].map((r) => r.id as string),
        },
      }
    } finally {
      await sql.close()
    }
  } finally {
    await store.close()
  }
}
