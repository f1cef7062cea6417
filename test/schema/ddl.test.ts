import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { schemaFor, statementsFor } from '../../server/schema/ddl.ts'
import { migrateServicePostgres } from '../../server/store/postgres/migrate.ts'
import { type Database, migrateService, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'

/**
 * The storage server/schema/ddl.ts derives from the declarations, on both backends. The service's
 * own collections (users, events, webhook endpoints and deliveries, OAuth clients) are still made by hand-written
 * migrations, and the generator, given their declarations, reproduces them: one database made by
 * the migrations, another by the generated statements alone (after the one service table they
 * reference, `orgs`), compared by what each database says of itself. (The built-in example's tables
 * were hand-written too until schema files; test/schema/upgrade.test.ts compares a database of that
 * release with a generated one.)
 */

const SCHEMA = exampleSchema()
const TABLES = SCHEMA.resources.filter((r) => r.service).map((r) => r.table)

/**
 * What the hand-written tables hold that no declaration can express: the service's own columns and
 * indexes beside the declared ones. The generator leaves them out; they are taken out of the
 * migrated side before comparing (each must be there, so that this list does not go stale).
 */
const SERVICE_ONLY: Record<string, { columns?: string[]; indexes?: string[] }> = {
  // The login password (server/store/sql/passwords.ts).
  users: { columns: ['password_hash'] },
  // Where the endpoint's deliveries follow the event log, and since when every attempt failed;
  // the delivery worker's look for endpoints behind the log.
  webhook_endpoints: { columns: ['log_position', 'failing_since'], indexes: ['(enabled, log_position)'] },
  // The body every attempt sends and the lease of the instance attempting; one delivery per event
  // and endpoint; the worker's look for due attempts.
  webhook_deliveries: {
    columns: ['payload', 'lease_owner', 'lease_until'],
    indexes: ['UNIQUE (endpoint_id, event_id)', '(status, next_attempt_at)'],
  },
  // The hash of a confidential client's secret (server/store/sql/clients.ts).
  oauth_clients: { columns: ['secret_hash'] },
}

/** PostgreSQL's event log position (SQLite uses the rowid), server/store/postgres/event-log.ts. */
const SERVICE_ONLY_POSTGRES: Record<string, { columns?: string[]; indexes?: string[] }> = {
  events: { columns: ['seq'], indexes: ['(org_id, seq)', 'UNIQUE (seq)'] },
}

/**
 * What the generator gives that the hand-written SQL does not, or gives otherwise, and why that
 * does not matter (or is the declaration's gap):
 * - a delivery's `endpoint_id` has no index of its own by hand: the service-only unique
 *   (endpoint_id, event_id) starts with it and serves the foreign key; the generator, which does
 *   not know that constraint, indexes the foreign key alone;
 * - a delivery's `endpoint_id` is ON DELETE CASCADE by hand (deleting an endpoint deletes its
 *   deliveries); a declaration cannot say how a reference behaves on delete, and the generator
 *   gives every foreign key NO ACTION;
 * - the event log's actor columns (actorType, actorId, requestId) come after the timestamps by
 *   hand (added later by ALTER TABLE), before them generated: column order differs, nothing reads
 *   columns by position; so do an OAuth client's (its table came before it was a resource);
 * - an OAuth client's `org_id` may be null by hand: the command-line client belongs to no
 *   organization (a read of the collection filters by the caller's, so it never shows);
 * - an OAuth client's `scopes` has a default by hand: ALTER TABLE added it to rows already there,
 *   and SQLite adds a NOT NULL column only with one; every write gives it a value.
 */
const GENERATED_ONLY_INDEXES: Record<string, string[]> = { webhook_deliveries: ['(endpoint_id)'] }
const CASCADES_BY_HAND = ['webhook_deliveries (endpoint_id) REFERENCES webhook_endpoints (id)']
const REORDERED = ['events', 'oauth_clients']
const ORG_OPTIONAL = ['oauth_clients']
const ADDED_WITH_DEFAULT: Record<string, string[]> = { oauth_clients: ['scopes'] }

/** The hand-written columns of `table` as the generator gives them, past the exceptions above. */
function undefaulted(table: string, hand: Shape, made: Shape): Shape {
  const columns = { ...hand.columns }
  if (ORG_OPTIONAL.includes(table)) {
    expect(columns.org_id).not.toContain('NOT NULL')
    columns.org_id = made.columns.org_id!
  }
  for (const column of ADDED_WITH_DEFAULT[table] ?? []) {
    expect(columns[column]).toContain(' DEFAULT ')
    columns[column] = columns[column]!.replace(/ DEFAULT .*$/, '')
  }
  return { ...hand, columns }
}

interface Shape {
  /** Column name -> type, nullability, key and default. */
  columns: Record<string, string>
  /** Column names in table order. */
  order: string[]
  /** `UNIQUE (org_id, email NOCASE)`, sorted: collations other than the default shown. */
  indexes: string[]
  /** `table (column) REFERENCES other (id) ON DELETE ...`, sorted. */
  keys: string[]
  /** The search: SQLite's FTS table and triggers as written, PostgreSQL's in columns and indexes. */
  search: string[]
}

/** Takes out what `except` lists, failing when one of them is not there. */
function without(shape: Shape, except: { columns?: string[]; indexes?: string[] } = {}): Shape {
  for (const column of except.columns ?? []) expect(Object.keys(shape.columns)).toContain(column)
  for (const index of except.indexes ?? []) expect(shape.indexes).toContain(index)
  const columns = new Set(except.columns)
  const indexes = new Set(except.indexes)
  return {
    ...shape,
    columns: Object.fromEntries(Object.entries(shape.columns).filter(([name]) => !columns.has(name))),
    order: shape.order.filter((name) => !columns.has(name)),
    indexes: shape.indexes.filter((index) => !indexes.has(index)),
  }
}

/** The key the hand-written SQL cascades, as the generator gives it (NO ACTION). */
const uncascaded = (shape: Shape): Shape => ({
  ...shape,
  keys: shape.keys.map((key) =>
    CASCADES_BY_HAND.some((k) => key === `${k} ON DELETE CASCADE`)
      ? key.replace(/CASCADE$/, 'NO ACTION')
      : key,
  ),
})

/** Compares table by table, after the listed exceptions (REORDERED tables compare columns as sets). */
function expectSame(
  byHand: Record<string, Shape>,
  generated: Record<string, Shape>,
  serviceOnly: typeof SERVICE_ONLY,
) {
  for (const table of TABLES) {
    const made = without(generated[table]!, { indexes: GENERATED_ONLY_INDEXES[table] })
    const hand = undefaulted(table, uncascaded(without(byHand[table]!, serviceOnly[table])), made)
    if (REORDERED.includes(table)) {
      expect(made.order).not.toEqual(hand.order)
      expect(new Set(made.order)).toEqual(new Set(hand.order))
      hand.order = made.order
    }
    expect({ table, ...made }).toEqual({ table, ...hand })
  }
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim()

function sqliteShapes(db: Database): Record<string, Shape> {
  const shapes: Record<string, Shape> = {}
  for (const table of TABLES) {
    const [listed] = db.query(`PRAGMA table_list(${table})`).all() as { strict: number }[]
    const info = db.query(`PRAGMA table_info(${table})`).all() as {
      name: string
      type: string
      notnull: number
      dflt_value: string | null
      pk: number
    }[]
    const columns: Record<string, string> = {}
    for (const c of info)
      columns[c.name] =
        `${c.type}${listed!.strict ? ' STRICT' : ''}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ' PRIMARY KEY' : ''}` +
        `${c.dflt_value === null ? '' : ` DEFAULT ${c.dflt_value}`}`
    const indexes = (
      db.query(`PRAGMA index_list(${table})`).all() as { name: string; unique: number; partial: number }[]
    ).map((index) => {
      const list = (
        db.query(`PRAGMA index_xinfo(${index.name})`).all() as { name: string; coll: string; key: number }[]
      )
        .filter((c) => c.key)
        .map((c) => (c.coll === 'BINARY' ? c.name : `${c.name} ${c.coll}`))
      return `${index.unique ? 'UNIQUE ' : ''}(${list.join(', ')})${index.partial ? ' WHERE' : ''}`
    })
    const keys = (
      db.query(`PRAGMA foreign_key_list(${table})`).all() as {
        table: string
        from: string
        to: string
        on_delete: string
      }[]
    ).map((k) => `${table} (${k.from}) REFERENCES ${k.table} (${k.to}) ON DELETE ${k.on_delete}`)
    // The FTS table over the searchable columns and the triggers that keep it, as SQLite keeps their text.
    const search = (
      db
        .query(
          "SELECT type, name, sql FROM sqlite_master WHERE name = ? OR (type = 'trigger' AND tbl_name = ?)",
        )
        .all(`${table}_fts`, table) as { type: string; name: string; sql: string }[]
    ).map((o) => `${o.type} ${o.name}: ${squeeze(o.sql)}`)
    shapes[table] = {
      columns,
      order: info.map((c) => c.name),
      indexes: indexes.sort(),
      keys: keys.sort(),
      search: search.sort(),
    }
  }
  return shapes
}

async function postgresShapes(sql: SQL): Promise<Record<string, Shape>> {
  const shapes: Record<string, Shape> = {}
  for (const table of TABLES) {
    const rows = (await sql`
      SELECT column_name, data_type, udt_name, collation_name, is_nullable, column_default,
        is_generated, generation_expression, is_identity
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`) as Record<
      string,
      string | null
    >[]
    const columns: Record<string, string> = {}
    const search: string[] = []
    for (const r of rows) {
      let text = `${r.data_type === 'USER-DEFINED' ? r.udt_name : r.data_type}`
      if (r.collation_name) text += ` COLLATE "${r.collation_name}"`
      if (r.is_nullable === 'NO') text += ' NOT NULL'
      if (r.column_default !== null) text += ` DEFAULT ${r.column_default}`
      if (r.is_identity === 'YES') text += ' IDENTITY'
      if (r.is_generated === 'ALWAYS') {
        text += ' GENERATED'
        search.push(`${r.column_name}: ${r.generation_expression}`)
      }
      columns[r.column_name!] = text
    }
    const indexRows = (await sql`
      SELECT x.indisunique AS is_unique, x.indisprimary AS is_primary, x.indpred IS NOT NULL AS partial,
        am.amname::text AS method,
        array_to_string(array(
          SELECT a.attname::text FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n), ', ') AS columns
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_am am ON am.oid = i.relam
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ${table}`) as Record<
      string,
      string | boolean
    >[]
    const indexes = indexRows.map((r) => {
      const kind = r.is_primary ? 'PRIMARY KEY ' : r.is_unique ? 'UNIQUE ' : ''
      const method = r.method === 'btree' ? '' : `${r.method} `
      return `${kind}${method}(${r.columns})${r.partial ? ' WHERE' : ''}`
    })
    const keyRows = (await sql`
      SELECT c.confrelid::regclass::text AS ref_table, c.confdeltype::text AS on_delete,
        (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1]) AS from_column,
        (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.confrelid AND a.attnum = c.confkey[1]) AS to_column
      FROM pg_constraint c
      WHERE c.contype = 'f' AND c.conrelid = ${table}::regclass`) as Record<string, string>[]
    const actions: Record<string, string> = { a: 'NO ACTION', c: 'CASCADE' }
    const keys = keyRows.map(
      (r) =>
        `${table} (${r.from_column}) REFERENCES ${r.ref_table} (${r.to_column}) ON DELETE ${actions[r.on_delete!] ?? r.on_delete}`,
    )
    shapes[table] = {
      columns,
      order: rows.map((r) => r.column_name!),
      indexes: indexes.sort(),
      keys: keys.sort(),
      search: search.sort(),
    }
  }
  return shapes
}

/** The one service table the resources reference, as the migrations make it (its own columns do not matter here). */
const ORGS = {
  sqlite: 'CREATE TABLE orgs (id TEXT PRIMARY KEY) STRICT',
  postgres: 'CREATE TABLE orgs (id text COLLATE "C" PRIMARY KEY)',
}

function generatedSqlite(): Database {
  const db = openDatabase(':memory:')
  db.run(ORGS.sqlite)
  for (const statement of statementsFor(SCHEMA, 'sqlite')) db.run(statement)
  return db
}

describe('the generated SQLite storage', () => {
  const byHand = openDatabase(':memory:')
  migrateService(byHand)
  const generated = generatedSqlite()
  afterAll(() => {
    byHand.close()
    generated.close()
  })

  it("gives the service's collections the tables, columns, unique constraints, indexes, keys and FTS of their migrations, but for the listed exceptions", () => {
    const hand = sqliteShapes(byHand)
    const made = sqliteShapes(generated)
    expectSame(hand, made, SERVICE_ONLY)
    // The comparison has something to compare: the email's case, the search, the parents' keys.
    expect(TABLES).toEqual(['users', 'events', 'webhook_endpoints', 'webhook_deliveries', 'oauth_clients'])
    expect(made.users!.indexes).toContain('UNIQUE (org_id, email NOCASE)')
    expect(made.users!.search).toHaveLength(4)
    expect(made.webhook_deliveries!.keys).toContain(
      'webhook_deliveries (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE NO ACTION',
    )
  })

  it('takes a resource at a time, its table first', () => {
    const products = SCHEMA.byName('products')!
    const statements = schemaFor(products, 'sqlite', SCHEMA)
    expect(statements[0]).toStartWith('CREATE TABLE products (')
    expect(statements.filter((s) => s.startsWith('CREATE TRIGGER'))).toHaveLength(3)
    expect(schemaFor(SCHEMA.byName('orders')!, 'sqlite', SCHEMA).join('\n')).not.toContain('fts')
  })

  it('serves the store: a product created, listed in order, found by its words, and its SKU unique', async () => {
    const db = generatedSqlite()
    try {
      db.run("INSERT INTO orgs (id) VALUES ('org_1')")
      const store = sqliteStore(db, SCHEMA)
      const products = SCHEMA.byName('products')!
      const create = (name: string, sku: string) =>
        store.records.insert(products, {
          id: newId(products.prefix),
          orgId: 'org_1',
          now: new Date().toISOString(),
          values: { name, sku, description: null, price: 500, currency: 'EUR', active: true },
        })
      const lamp = await create('Crème brûlée torch', 'TOR-1')
      await create('Garden hose', 'HOS-2')
      const sort = [
        { field: 'createdAt', descending: false },
        { field: 'id', descending: false },
      ]
      const all = await store.records.page(products, 'org_1', { where: [], sort, limit: 10 })
      expect(all.map((p) => p.name)).toEqual(['Crème brûlée torch', 'Garden hose'])
      const found = await store.records.page(products, 'org_1', {
        where: [],
        search: 'creme tor',
        sort,
        limit: 10,
      })
      expect(found.map((p) => p.id)).toEqual([lamp.id])
      expect(await store.records.uniqueTaken(products, 'org_1', 'sku', 'TOR-1')).toBe(true)
      await expect(create('Another torch', 'TOR-1')).rejects.toThrow()
    } finally {
      db.close()
    }
  })
})

if (!postgresAvailable())
  console.warn(
    'PostgreSQL is not installed here: the generated PostgreSQL storage is not compared (apt-get install postgresql, or set API_TEST_POSTGRES_URL)',
  )

const describeWithPostgres = postgresAvailable() ? describe : describe.skip

describeWithPostgres('the generated PostgreSQL storage', () => {
  let postgres: TestPostgres
  const opened: SQL[] = []

  async function database(name: string): Promise<SQL> {
    const sql = new SQL(await postgres.database(name, { icuLocale: 'en-US' }), { max: 1 })
    opened.push(sql)
    return sql
  }

  beforeAll(async () => {
    postgres = await startTestPostgres()
  })

  afterAll(async () => {
    for (const sql of opened) await sql.close()
    await postgres?.stop()
  })

  it("gives the service's collections the tables, columns, unique constraints, indexes, keys and search columns of their migrations, but for the listed exceptions", async () => {
    const byHand = await database('ddl_by_hand')
    await migrateServicePostgres(byHand)
    const generated = await database('ddl_generated')
    await generated.unsafe(ORGS.postgres)
    for (const statement of statementsFor(SCHEMA, 'postgres')) await generated.unsafe(statement)

    const hand = await postgresShapes(byHand)
    const made = await postgresShapes(generated)
    expectSame(hand, made, { ...SERVICE_ONLY, ...SERVICE_ONLY_POSTGRES })
    expect(made.users!.columns.email).toBe('citext COLLATE "C" NOT NULL')
    expect(made.users!.indexes).toContain('gin (search_vector)')
    expect(made.users!.search).toHaveLength(1)
  })
})
