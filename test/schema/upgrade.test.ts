import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { openStore } from '../../server/store/open.ts'
import { canonicalJson } from '../../shared/canonical-json.ts'
import { sha256Hex } from '../../shared/crypto.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { declarationOf } from '../../shared/schema/declaration.ts'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from '../support/backend.ts'
import { snapshotOf, structureOf } from '../support/db-structure.ts'
import { postgresProgram } from '../support/postgres.ts'
import { postgresDatabase } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

/**
 * A database made by the last release before schema files (test/fixtures/upgrade/README.md: the
 * demo data and a few records of every collection of the built-in example, made through that
 * release's own commands and server), opened by today's code: its example tables were written by
 * hand then and are derived from the declaration now.
 */

const FIXTURES = join(import.meta.dir, '../fixtures/upgrade')
const SCHEMA = exampleSchema()
const EXAMPLE_TABLES = SCHEMA.resources.filter((r) => !r.service).map((r) => r.table)
/** Tables today's code adds, or adds rows to, besides the release's (an OAuth client's search on SQLite). */
const NEW_TABLES = [
  'schema_versions',
  'user_identities',
  'user_totp',
  'user_recovery_codes',
  'user_passkeys',
  'webauthn_challenges',
  ...(onPostgres
    ? []
    : ['', '_config', '_data', '_docsize', '_idx'].map((part) => `oauth_clients_fts${part}`)),
]
const MIGRATION_TABLE = 'schema_migrations'
const CLIENTS_TABLE = 'oauth_clients'

/**
 * An OAuth client's row as the migration that made clients a resource leaves it: its scopes, once
 * separated by spaces, a JSON list (and on PostgreSQL the search column it adds, left out here). The command-line client's row is rewritten by every start with
 * the schema's scopes (the new collection's among them); only those two columns of it may differ.
 */
function asMigrated(row: string): string {
  const { scope, search_vector: _, ...values } = JSON.parse(row) as Record<string, unknown>
  if (typeof scope === 'string') values.scopes = JSON.stringify(scope.split(' '))
  if (values.id === 'api-cli') {
    delete values.scopes
    delete values.updated_at
  }
  return canonicalJson(values)
}

/** An organization's row with the second-factor policy the signing-in migration adds: none, for every organization there before. */
function withoutPolicy(row: string): string {
  const { require_2fa, ...values } = JSON.parse(row) as Record<string, unknown>
  expect(require_2fa).toBe('none')
  return canonicalJson(values)
}

/** A copy of the release's database, and an empty one, as `--db` values. */
async function databases(dir: string): Promise<{ release: string; fresh: string }> {
  if (!onPostgres) {
    const release = join(dir, 'release.db')
    writeFileSync(release, Bun.gunzipSync(readFileSync(join(FIXTURES, 'release.sqlite.gz'))))
    return { release, fresh: join(dir, 'fresh.db') }
  }
  const release = await postgresDatabase()
  const load = Bun.spawnSync(
    [
      postgresProgram('psql'),
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-f',
      join(FIXTURES, 'release.postgres.sql'),
      release,
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  if (load.exitCode !== 0) throw new Error(`psql failed: ${load.stderr}`)
  return { release, fresh: await postgresDatabase() }
}

const testSql = (location: string): TestSql =>
  onPostgres ? postgresTestSql(location) : sqliteTestSql(new Database(location, { strict: true }))

/** Opens today's store on `location` and migrates it, as every start does; returns what it logged. */
async function start(location: string): Promise<string[]> {
  const lines: string[] = []
  const store = openStore(location, exampleSchema(), { logger: createLogger('info', (l) => lines.push(l)) })
  try {
    await store.migrate()
  } finally {
    await store.close()
  }
  return lines.map((line) => JSON.parse(line).msg)
}

describe(`a database made by the release before schema files, opened by today's code (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'api-upgrade-'))
  let release: string
  let fresh: string
  let sql: TestSql
  let before: Record<string, string[]>
  let afterFirst: Record<string, string[]>
  let firstLog: string[]

  beforeAll(async () => {
    ;({ release, fresh } = await databases(dir))
    sql = testSql(release)
    before = await snapshotOf(sql, onPostgres)
    firstLog = await start(release)
    afterFirst = await snapshotOf(sql, onPostgres)
  })

  afterAll(async () => {
    await sql?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps every row of every table', () => {
    // The comparison has rows to compare: the seed's and the records made after it.
    expect(before.orders!.length).toBeGreaterThan(20)
    expect(before.comments!.some((row) => row.includes('Déjà vu, façade'))).toBe(true)
    for (const [table, rows] of Object.entries(before)) {
      if (table === MIGRATION_TABLE) for (const row of rows) expect(afterFirst[table]).toContain(row)
      else if (table === CLIENTS_TABLE)
        expect({ table, rows: afterFirst[table]!.map(asMigrated) }).toEqual({
          table,
          rows: rows.map(asMigrated),
        })
      else if (table === 'orgs')
        expect({ table, rows: afterFirst[table]!.map(withoutPolicy) }).toEqual({ table, rows })
      else expect({ table, rows: afterFirst[table] }).toEqual({ table, rows })
    }
    expect(Object.keys(afterFirst).sort()).toEqual([...Object.keys(before), ...NEW_TABLES].sort())
  })

  it('records the schema it held, the built-in example, as version 1, and changes nothing else', async () => {
    const rows = await sql.all<{ version: number; hash: string; declaration: string }>(
      'SELECT version, hash, declaration FROM schema_versions',
    )
    const declaration = canonicalJson(declarationOf(SCHEMA))
    expect(rows).toEqual([{ version: 1, hash: sha256Hex(declaration), declaration }])
    expect(firstLog).toEqual(['schema recorded'])
  })

  it('writes nothing on a second start', async () => {
    expect(await start(release)).toEqual([])
    expect(await snapshotOf(sql, onPostgres)).toEqual(afterFirst)
  })

  it("has the example's tables, indexes, constraints and search built as a fresh database has them", async () => {
    await start(fresh)
    const other = testSql(fresh)
    try {
      const made = await structureOf(other, onPostgres, EXAMPLE_TABLES)
      // The comparison has something to compare: every table, its search, its indexes.
      expect(made.filter((line) => line.includes('products_org_sku_unique')).length).toBeGreaterThan(0)
      expect(
        made.filter((line) => /comments_fts|comments_search|search_vector/.test(line)).length,
      ).toBeGreaterThan(0)
      expect(await structureOf(sql, onPostgres, EXAMPLE_TABLES)).toEqual(made)
    } finally {
      await other.close()
    }
  })

  describe('served', () => {
    let server: RunningServer
    let token: string
    let orgId: string
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } })
      expect([path, response.status]).toEqual([path, 200])
      return (await response.json()) as { data: Record<string, unknown>[] }
    }

    beforeAll(async () => {
      server = await serve({
        host: '127.0.0.1',
        port: 0,
        db: release,
        schema: exampleSchema(),
        logger: createLogger('error', (line) => console.error(line)),
      })
      const store = openStore(release, exampleSchema())
      try {
        orgId = (await store.orgs.find('Acme'))!.id
        const { client, secret } = await store.clients.create({ name: 'upgrade test', orgId, public: false })
        token = await clientToken(server.url, { id: client.id, secret: secret! })
      } finally {
        await store.close()
      }
    })

    afterAll(async () => {
      await server?.stop()
    })

    it('serves the records the release stored: by filter, by sort, by their words, with their integers whole', async () => {
      const { data: products } = await get('/api/v1/products?q=creme&limit=10')
      expect(products.map((p) => [p.name, p.price])).toEqual([['Crème brûlée torch', 3_000_000_000]])
      const { data: cancelled } = await get('/api/v1/orders?status=cancelled&amount_gte=3000000000')
      expect(cancelled.map((o) => o.amount)).toEqual([3_000_001_999])
      const { data: items } = await get(`/api/v1/orders/${cancelled[0]!.id}/line-items?sort=-unitPrice`)
      expect(items.map((i) => [i.productId, i.unitPrice])).toEqual([
        [products[0]!.id, 3_000_000_000],
        [expect.any(String), 1999],
      ])
      const { data: comments } = await get('/api/v1/comments?q=facade')
      expect(comments.map((c) => [c.text, c.authorId])).toEqual([['Déjà vu, façade', null]])
      // Of the two addresses the release stored, it deleted one.
      const { data: addresses } = await get('/api/v1/addresses?q=eglise')
      expect(addresses.map((a) => a.line1)).toEqual([expect.stringContaining("rue de l'Église")])
      const { data: posts } = await get('/api/v1/posts?sort=title&limit=100')
      const titles = posts.map((p) => String(p.title))
      expect(titles).toEqual([...titles].sort())
      expect(posts.length).toBe(await sql.count('posts', orgId))
    })
  })
})
