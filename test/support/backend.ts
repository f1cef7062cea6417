import { Database } from 'bun:sqlite'
import { SQL } from 'bun'

/**
 * Which store the suite runs on: SQLite (`npm test`, the default) or PostgreSQL with Redis
 * (`npm run test:postgres`, which starts both and sets `API_TEST_BACKEND=postgres` together with
 * `API_TEST_POSTGRES_URL` and `API_TEST_REDIS_URL`).
 */
type TestBackend = 'sqlite' | 'postgres'

const testBackend: TestBackend = process.env.API_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite'
export const onPostgres = testBackend === 'postgres'

/** A value as SQL returns it: numbers, text, null (PostgreSQL's bigint counts come back as numbers). */
export type Row = Record<string, unknown>

/**
 * Statements on the server's own database, for setting up what the API cannot and for checking
 * what was stored: the same text on both backends, `?` for each parameter.
 */
export interface TestSql {
  all: <T = Row>(text: string, ...params: unknown[]) => Promise<T[]>
  get: <T = Row>(text: string, ...params: unknown[]) => Promise<T | null>
  run: (text: string, ...params: unknown[]) => Promise<void>
  /** Rows of a table, for one organization when given. */
  count: (table: string, orgId?: string) => Promise<number>
  close: () => Promise<void>
}

/** Parameters as given, or one array of them (as bun:sqlite's `run([a, b])` takes). */
const flat = (params: unknown[]): unknown[] =>
  params.length === 1 && Array.isArray(params[0]) ? (params[0] as unknown[]) : params

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the tests' statements hold no `?` in strings). */
const numbered = (text: string) => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

/** PostgreSQL answers counts (bigint) as strings; the tests compare numbers. */
const plain = (row: Row): Row => {
  const out: Row = {}
  for (const [key, value] of Object.entries(row)) out[key] = typeof value === 'bigint' ? Number(value) : value
  return out
}

function counter(all: TestSql['all']) {
  return async (table: string, orgId?: string) => {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table: ${table}`)
    const rows = orgId
      ? await all<{ n: unknown }>(`SELECT count(*) AS n FROM ${table} WHERE org_id = ?`, orgId)
      : await all<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`)
    return Number(rows[0]?.n)
  }
}

export function sqliteTestSql(db: Database): TestSql {
  const all = async <T>(text: string, ...params: unknown[]) =>
    db.query(text).all(...(flat(params) as never[])) as T[]
  return {
    all,
    get: async <T>(text: string, ...params: unknown[]) =>
      (db.query(text).get(...(flat(params) as never[])) as T | null) ?? null,
    run: async (text, ...params) => {
      db.query(text).run(...(flat(params) as never[]))
    },
    count: counter(all),
    close: async () => db.close(),
  }
}

export function postgresTestSql(url: string): TestSql {
  const sql = new SQL(url, { max: 2, bigint: true })
  const all = async <T>(text: string, ...params: unknown[]) =>
    ((await sql.unsafe(numbered(text), flat(params) as never[])) as Row[]).map(plain) as T[]
  return {
    all,
    get: async <T>(text: string, ...params: unknown[]) =>
      ((await all<T>(text, ...params))[0] ?? null) as T | null,
    run: async (text, ...params) => {
      await sql.unsafe(numbered(text), flat(params) as never[])
    },
    count: counter(all),
    close: () => sql.close(),
  }
}

/**
 * The SQL statements the server runs while `run` is under way, one entry per execution. On SQLite
 * the test server runs in this process, so every statement goes through bun:sqlite's
 * Database.prototype.query (the store prepares statements no other way); on PostgreSQL the
 * server's pg_stat_statements counts them (the suite's server loads it).
 */
export async function statementsOf(sql: TestSql, run: () => Promise<unknown>): Promise<string[]> {
  if (onPostgres) {
    await sql.run('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    await sql.run('SELECT pg_stat_statements_reset()')
    await run()
    const rows = await sql.all<{ query: string; calls: number }>(
      `SELECT query, calls FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT LIKE '%pg_stat_statements%'`,
    )
    return rows.flatMap((r) => Array<string>(Number(r.calls)).fill(r.query))
  }
  const statements: string[] = []
  const query = Database.prototype.query
  Database.prototype.query = function (this: Database, text: string) {
    statements.push(text)
    return query.call(this, text)
  } as typeof query
  try {
    await run()
  } finally {
    Database.prototype.query = query
  }
  return statements
}
