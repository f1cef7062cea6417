import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { createOrder, type Entity } from '../rest/fixtures.ts'
import { onPostgres } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { ids, query, queryPage, SQL, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant
let rival: Tenant
let orders: Entity[]
let rivalOrder: Entity

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  rival = await server.tenant()
  orders = (await seedOrders(acme)).orders
  rivalOrder = await createOrder(rival, { amount: 777 })
})
afterAll(() => server.stop())

/**
 * Everything a hostile body could change: the schema, every table's row count, the schema
 * version, read from the server's own catalogue (SQLite's sqlite_schema, PostgreSQL's pg_catalog).
 */
async function snapshot(): Promise<string> {
  const tables = onPostgres
    ? await server.sql.all<{ name: string; kind: string }>(
        `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' ORDER BY c.relname`,
      )
    : await server.sql.all<{ name: string; sql: string | null }>(
        "SELECT name, sql FROM sqlite_schema WHERE type IN ('table', 'index', 'trigger', 'view') ORDER BY name",
      )
  const isTable = (t: { name: string; kind?: string; sql?: string | null }) =>
    onPostgres
      ? t.kind === 'r'
      : !t.name.includes('_fts') && !t.name.startsWith('sqlite_') && (t.sql ?? '').startsWith('CREATE TABLE')
  const counts = await Promise.all(
    tables
      .filter(isTable)
      .filter((t) => !['stored_queries', 'query_results'].includes(t.name))
      .map(async (t) => [t.name, await server.sql.count(t.name)]),
  )
  const version = onPostgres
    ? await server.sql.all('SELECT version FROM schema_migrations ORDER BY version')
    : await server.sql.get('PRAGMA user_version')
  return JSON.stringify({ tables, counts, version })
}

const hostile: { name: string; sql: string; status?: number }[] = [
  { name: 'stacked DROP', sql: 'SELECT * FROM orders; DROP TABLE orders' },
  { name: 'stacked DELETE behind a comment', sql: 'SELECT * FROM orders /* harmless */; DELETE FROM orders' },
  {
    name: 'stacked UPDATE after a line comment',
    sql: 'SELECT * FROM orders --\n; UPDATE orders SET amount = 0',
  },
  { name: 'UNION with users', sql: 'SELECT id FROM orders UNION SELECT id FROM users' },
  { name: 'UNION ALL with sqlite_schema', sql: 'SELECT * FROM orders UNION ALL SELECT * FROM sqlite_schema' },
  { name: 'subquery in WHERE', sql: 'SELECT * FROM orders WHERE amount = (SELECT max(amount) FROM orders)' },
  {
    name: 'IN subquery on another table',
    sql: 'SELECT * FROM orders WHERE user_id IN (SELECT id FROM users)',
  },
  { name: 'EXISTS subquery', sql: 'SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM oauth_clients)' },
  { name: 'subquery in FROM', sql: 'SELECT * FROM (SELECT * FROM users)' },
  { name: 'CTE', sql: 'WITH u AS (SELECT * FROM users) SELECT * FROM orders' },
  {
    name: 'recursive CTE',
    sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM orders',
  },
  { name: 'JOIN', sql: 'SELECT * FROM orders JOIN users ON orders.user_id = users.id' },
  { name: 'comma join', sql: 'SELECT * FROM orders, users' },
  { name: 'another collection', sql: 'SELECT * FROM users' },
  { name: 'an internal table', sql: 'SELECT * FROM oauth_clients' },
  { name: 'signing keys', sql: 'SELECT * FROM signing_keys' },
  { name: 'sqlite_schema', sql: 'SELECT * FROM sqlite_schema' },
  { name: 'sqlite_master', sql: 'SELECT sql FROM sqlite_master' },
  { name: 'a schema-qualified table', sql: 'SELECT * FROM main.orders' },
  { name: 'a column of another table', sql: "SELECT * FROM orders WHERE users.email = 'a'" },
  { name: 'the organization column', sql: `SELECT * FROM orders WHERE org_id = '${'x'}'` },
  { name: 'rowid', sql: 'SELECT * FROM orders WHERE rowid > 0' },
  { name: 'PRAGMA', sql: 'PRAGMA table_info(orders)' },
  { name: 'PRAGMA writable_schema', sql: 'PRAGMA writable_schema = 1' },
  { name: 'ATTACH', sql: "ATTACH DATABASE '/tmp/stolen.db' AS stolen" },
  { name: 'DETACH', sql: 'DETACH DATABASE main' },
  { name: 'load_extension', sql: "SELECT * FROM orders WHERE load_extension('/tmp/evil.so') = 1" },
  { name: 'randomblob', sql: 'SELECT * FROM orders WHERE length(randomblob(1000000000)) > 1' },
  { name: 'zeroblob in the select list', sql: 'SELECT zeroblob(1000000000) FROM orders' },
  { name: 'printf', sql: "SELECT * FROM orders WHERE printf('%.*c', 1000000000, 'x') = status" },
  {
    name: 'a huge IN list',
    sql: `SELECT * FROM orders WHERE amount IN (${Array.from({ length: 101 }, (_, i) => i).join(', ')})`,
  },
  {
    name: 'a huge IN list of 5000',
    sql: `SELECT * FROM orders WHERE amount IN (${Array.from({ length: 5000 }, (_, i) => i).join(',')})`,
  },
  {
    name: 'a LIKE pattern with many wildcards',
    sql: "SELECT * FROM orders WHERE currency LIKE '%a%b%c%d%e%f%'",
  },
  { name: 'a long LIKE pattern', sql: `SELECT * FROM orders WHERE currency LIKE '${'a'.repeat(150)}%'` },
  { name: 'LIKE on a number', sql: "SELECT * FROM orders WHERE amount LIKE '1%'" },
  { name: 'GLOB', sql: "SELECT * FROM orders WHERE currency GLOB '*'" },
  { name: 'REGEXP', sql: "SELECT * FROM orders WHERE currency REGEXP '(a+)+$'" },
  { name: 'LIMIT above 100', sql: 'SELECT * FROM orders LIMIT 101' },
  { name: 'LIMIT of a million', sql: 'SELECT * FROM orders LIMIT 1000000' },
  { name: 'LIMIT -1 (no limit in SQLite)', sql: 'SELECT * FROM orders LIMIT -1' },
  { name: 'LIMIT 0', sql: 'SELECT * FROM orders LIMIT 0' },
  { name: 'LIMIT ALL (not SQLite syntax)', sql: 'SELECT * FROM orders LIMIT ALL', status: 400 },
  { name: 'LIMIT from a subquery', sql: 'SELECT * FROM orders LIMIT (SELECT 1)' },
  { name: 'a tautology', sql: "SELECT * FROM orders WHERE status = 'x' OR 1 = 1" },
  { name: 'a bound parameter', sql: 'SELECT * FROM orders WHERE status = ?' },
  { name: 'CASE', sql: "SELECT * FROM orders WHERE status = CASE WHEN 1 THEN 'paid' END" },
  { name: 'CAST', sql: 'SELECT * FROM orders WHERE amount = CAST(1 AS INTEGER)' },
  { name: 'COLLATE', sql: "SELECT * FROM orders WHERE status = 'PAID' COLLATE NOCASE" },
  { name: 'a blob literal', sql: "SELECT * FROM orders WHERE currency = x'455552'" },
  { name: 'ORDER BY a subquery', sql: 'SELECT * FROM orders ORDER BY (SELECT 1)' },
  { name: 'ORDER BY a column number', sql: 'SELECT * FROM orders ORDER BY 1' },
  { name: 'GROUP BY without an aggregate', sql: 'SELECT status FROM orders GROUP BY status' },
  { name: 'GROUP BY another table', sql: 'SELECT count(*) FROM orders GROUP BY users.role' },
  {
    name: 'HAVING with a subquery',
    sql: 'SELECT count(*) FROM orders HAVING count(*) > (SELECT count(*) FROM users)',
  },
  { name: 'an aggregate of another table', sql: 'SELECT sum(users.id) FROM orders' },
  { name: 'an aggregate alias', sql: 'SELECT count(*) AS n FROM orders' },
  { name: 'DISTINCT', sql: 'SELECT DISTINCT status FROM orders' },
  { name: 'an alias', sql: 'SELECT amount AS a FROM orders' },
  { name: 'INSERT', sql: "INSERT INTO orders (id) VALUES ('x')" },
  { name: 'UPDATE', sql: 'UPDATE orders SET amount = 0' },
  { name: 'DELETE', sql: 'DELETE FROM orders' },
  { name: 'DROP', sql: 'DROP TABLE orders' },
  { name: 'CREATE', sql: 'CREATE TABLE x (a)' },
  { name: 'ALTER', sql: 'ALTER TABLE orders ADD COLUMN x' },
  { name: 'VACUUM INTO', sql: "VACUUM INTO '/tmp/copy.db'" },
  { name: 'BEGIN', sql: 'BEGIN' },
  {
    name: 'nine levels of parentheses',
    sql: `SELECT * FROM orders WHERE ${'('.repeat(9)}amount = 1${')'.repeat(9)}`,
  },
  { name: 'forty unclosed parentheses', sql: `SELECT * FROM orders WHERE ${'('.repeat(40)}amount = 1` },
  { name: 'a NUL byte', sql: 'SELECT * FROM orders\u0000; DROP TABLE orders', status: 400 },
  {
    name: 'a SQL string longer than the limit',
    sql: `SELECT * FROM orders WHERE currency = '${'E'.repeat(10_001)}'`,
  },
]

describe('QUERY with a hostile application/sql body', () => {
  for (const c of hostile) {
    it(`${c.name}: ${c.status ?? 422}, quickly, and nothing changes`, async () => {
      const before = await snapshot()
      const started = performance.now()
      const response = await query(acme, '/api/v1/orders', SQL, c.sql)
      const text = await response.text()
      expect({ status: response.status, text }).toMatchObject({ status: c.status ?? 422 })
      expect(performance.now() - started).toBeLessThan(1000)
      expect(JSON.parse(text).error.details[0].field).toBe('body')
      // Nothing of the database leaks: no SQLite error, schema or stored secret.
      expect(text).not.toMatch(
        /SQLITE_[A-Z]|CREATE TABLE \w+ \(|secret_hash|private_jwk|no such (table|column)/,
      )
      expect(await snapshot()).toBe(before)
    })
  }

  it('reads a comment as a comment: what follows -- never runs', async () => {
    const before = await snapshot()
    const page = await queryPage(
      acme,
      '/api/v1/orders',
      SQL,
      "SELECT id FROM orders WHERE status = 'paid' -- ; DROP TABLE orders",
    )
    expect(ids(page)).toEqual(orders.filter((o) => o.status === 'paid').map((o) => o.id))
    expect(await snapshot()).toBe(before)
  })

  it("never shows another organization's records, whatever the WHERE", async () => {
    const bodies = [
      'SELECT * FROM orders',
      `SELECT * FROM orders WHERE id = '${rivalOrder.id}'`,
      `SELECT * FROM orders WHERE user_id = '${rivalOrder.userId}' OR amount >= 0`,
      'SELECT * FROM orders WHERE amount = 777',
    ]
    for (const body of bodies) {
      const page = await queryPage(acme, '/api/v1/orders', SQL, body)
      expect(ids(page)).not.toContain(rivalOrder.id)
    }
  })
})

const SQL_WORDS = [
  'SELECT',
  '*',
  'FROM',
  'orders',
  'users',
  'sqlite_schema',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'status',
  'amount',
  'id',
  "'paid'",
  '1',
  '-1',
  '=',
  '<',
  '>=',
  '(',
  ')',
  ',',
  ';',
  '--',
  '/*',
  '*/',
  'UNION',
  'SELECT',
  'DROP',
  'TABLE',
  'PRAGMA',
  'ATTACH',
  'LIMIT',
  'OFFSET',
  'ORDER',
  'BY',
  'DESC',
  'IN',
  'LIKE',
  "'%'",
  'IS',
  'NULL',
  'randomblob',
  'load_extension',
  'WITH',
  'JOIN',
  '?',
  'x',
  "'",
  '"',
  'DELETE',
  'INSERT',
  'INTO',
  'VALUES',
  'GROUP',
  'HAVING',
  'count(*)',
  'sum(amount)',
  'avg',
  'max',
  'date_trunc',
  "'day'",
  'created_at',
  'AS',
  'BETWEEN',
]

describe('QUERY with generated SQL (fast-check)', () => {
  it('answers 200, 400 or 422 to any sequence of SQL words, quickly, and changes nothing', async () => {
    const before = await snapshot()
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...SQL_WORDS), { minLength: 1, maxLength: 24 }),
        async (words) => {
          const started = performance.now()
          const response = await query(acme, '/api/v1/orders', SQL, words.join(' '))
          const text = await response.text()
          expect([200, 400, 422]).toContain(response.status)
          expect(performance.now() - started).toBeLessThan(1000)
          if (response.status === 200)
            expect(JSON.parse(text).data.every((o: Entity) => o.id !== rivalOrder.id)).toBe(true)
        },
      ),
      { numRuns: 150 },
    )
    expect(await snapshot()).toBe(before)
  })
})
