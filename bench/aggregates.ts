/**
 * `npm run bench:aggregates`: the p50 latency of `GET /api/v2/orders/aggregates` over 1,000,000
 * orders of one organization, grouped by status (count and sum) and by day, against a raw
 * Bun.serve + bun:sqlite baseline running the hand-written GROUP BY over the same file
 * (bench/aggregates-baseline.ts), in the same run. The product runs with `--no-cache`: every
 * answer is computed, as the baseline's is. Prints the figures docs/performance.md records.
 *
 * The database (under /tmp, reused while it holds the expected orders) is made by the product's
 * own migrate, then filled with multi-row INSERTs: a million orders through the engine would take
 * the better part of an hour.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { systemPrincipal } from '../server/admin/system.ts'
import { CursorCodec } from '../server/resources/cursor.ts'
import { prepareCreate } from '../server/resources/writes.ts'
import { migrateDatabase, openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import { newId } from '../shared/ids.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { users } from '../shared/resources/users.ts'
import { BASELINE_SQL } from './aggregates-baseline.ts'
import { BUN, clientToken, startServer } from './processes.ts'

const ORDERS = 1_000_000
/** A second organization's orders, so that the organization condition has something to leave out. */
const OTHER_ORDERS = 10_000
const DB = '/tmp/api-bench-aggregates/orders-1m.db'
const ROOT = join(import.meta.dir, '..')
const ROWS_PER_INSERT = 500
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']
const CURRENCIES = ['EUR', 'USD', 'GBP']
const START = Date.UTC(2025, 0, 1)
const ROUNDS = 21
const PATHS = {
  status: '/api/v2/orders/aggregates?group_by=status&aggregate=count,sum(amount)',
  day: '/api/v2/orders/aggregates?group_by=created_at:day',
}

const log = (line: string) => console.error(line)

function orderCount(path: string): number {
  if (!existsSync(path)) return -1
  const db = openDatabase(path)
  try {
    return (db.query('SELECT count(*) AS n FROM orders').get() as { n: number }).n
  } catch {
    return -1
  } finally {
    db.close()
  }
}

/** Inserts `count` orders of one organization, 30 s apart, in one transaction. */
function insertOrders(db: ReturnType<typeof openDatabase>, orgId: string, userId: string, count: number) {
  const columns = '(id, org_id, user_id, status, amount, currency, created_at, updated_at)'
  const values = Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')
  const insert = db.prepare(`INSERT INTO orders ${columns} VALUES ${values}`)
  db.transaction(() => {
    for (let done = 0; done < count; done += ROWS_PER_INSERT) {
      const params: (string | number)[] = []
      for (let i = done; i < done + ROWS_PER_INSERT; i++) {
        const at = START + i * 30_000
        const time = new Date(at).toISOString()
        params.push(newId('ord', at), orgId, userId, STATUSES[i % 5]!, 100 + ((i * 7919) % 100_000))
        params.push(CURRENCIES[i % 3]!, time, time)
      }
      insert.run(...params)
    }
  })()
}

/** The bench database: migrated by the product, filled with raw INSERTs; built once, then reused. */
async function ensureDatabase(): Promise<void> {
  if (orderCount(DB) === ORDERS + OTHER_ORDERS) return log(`reusing ${DB}`)
  mkdirSync(join(DB, '..'), { recursive: true })
  const building = `${DB}.building`
  for (const file of [building, `${building}-wal`, `${building}-shm`]) rmSync(file, { force: true })
  const started = performance.now()
  const db = openDatabase(building, 'fast')
  const schema = exampleSchema()
  await migrateDatabase(db, schema)
  const store = sqliteStore(db, schema)
  const engine = { store, schema, clock: () => START, cursors: new CursorCodec(new Uint8Array(32)) }
  for (const [name, count] of [
    ['Aggregates Org', ORDERS],
    ['Other Org', OTHER_ORDERS],
  ] as const) {
    const org = await store.orgs.create(name)
    const owner = { name: 'Owner', email: `owner@${org.id}.example`, role: 'admin' }
    const user = await prepareCreate(engine, systemPrincipal(schema, org.id), users, owner).apply(engine)
    insertOrders(db, org.id, user.id as string, count)
  }
  db.run('ANALYZE')
  db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  for (const file of [DB, `${DB}-wal`, `${DB}-shm`]) rmSync(file, { force: true })
  renameSync(building, DB)
  rmSync(`${building}-wal`, { force: true })
  rmSync(`${building}-shm`, { force: true })
  log(`built ${DB} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; body: string }> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`)
  return { ms: performance.now() - started, body }
}

async function main(): Promise<void> {
  await ensureDatabase()
  const db = openDatabase(DB)
  const orgId = (db.query('SELECT id FROM orgs ORDER BY created_at, id LIMIT 1').get() as { id: string }).id
  const store = sqliteStore(db, exampleSchema())
  const { client, secret } = await store.clients.create({ name: 'bench', orgId, public: false, scope: ['read:orders'] })
  for (const [name, sql] of Object.entries(BASELINE_SQL)) {
    const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(orgId, 21) as { detail: string }[]
    log(`baseline ${name}: ${plan.map((p) => p.detail).join('; ')}`)
  }
  db.close()
  const env = { API_RATE_LIMIT: '1000000000' }
  const serve = [BUN, 'server/main.ts', 'serve', '--host', '127.0.0.1', '--db', DB, '--no-cache']
  const product = await startServer('product --no-cache', serve, { cwd: ROOT, env })
  const baseline = await startServer('baseline', [BUN, 'bench/aggregates-baseline.ts', '--db', DB, '--org', orgId], {
    cwd: ROOT,
  })
  try {
    const token = await clientToken(product.url, { id: client.id, secret: secret! }, 'read:orders')
    const auth = { Authorization: `Bearer ${token}` }
    const samples: Record<string, { product: number[]; baseline: number[] }> = {}
    for (const [name, path] of Object.entries(PATHS)) {
      const mine = JSON.parse((await timed(`${product.url}${path}`, auth)).body) as { data: unknown[] }
      const theirs = JSON.parse((await timed(`${baseline.url}${path}`, {})).body) as { data: unknown[] }
      if (JSON.stringify(mine.data) !== JSON.stringify(theirs.data))
        throw new Error(`${name}: the product and the baseline answer different groups`)
      samples[name] = { product: [], baseline: [] }
    }
    // Alternating, so that both see the same machine at the same time.
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of Object.entries(PATHS)) {
        samples[name]!.product.push((await timed(`${product.url}${path}`, auth)).ms)
        samples[name]!.baseline.push((await timed(`${baseline.url}${path}`, {})).ms)
      }
    }
    console.log(`| request | product p50 | baseline p50 | product / baseline speed |`)
    console.log('|---|---|---|---|')
    for (const [name, path] of Object.entries(PATHS)) {
      const mine = p50(samples[name]!.product)
      const theirs = p50(samples[name]!.baseline)
      console.log(
        `| \`GET ${path}\` | ${mine.toFixed(1)} ms | ${theirs.toFixed(1)} ms | ${((100 * theirs) / mine).toFixed(0)}% |`,
      )
    }
  } finally {
    await product.stop()
    await baseline.stop()
  }
}

await main()
