/**
 * The database `npm run bench:aggregates` measures: 1,000,000 orders of one organization under
 * /tmp, reused while it holds the expected orders. Made by the product's own migrate, then filled
 * with multi-row INSERTs: a million orders through the engine would take the better part of an hour.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { systemPrincipal } from '../server/admin/system.ts'
import { CursorCodec } from '../server/resources/cursor.ts'
import { prepareCreate } from '../server/resources/writes.ts'
import { migrateDatabase, openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import { newId } from '../shared/ids.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { users } from '../shared/resources/users.ts'
import { orderCount } from './build-database.ts'

export const ORDERS = 1_000_000
/** A second organization's orders, so that the organization condition has something to leave out. */
export const OTHER_ORDERS = 10_000
export const AGGREGATES_DB = '/tmp/api-bench-aggregates/orders-1m.db'
export const ROWS_PER_INSERT = 500
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']
const CURRENCIES = ['EUR', 'USD', 'GBP']
const START = Date.UTC(2025, 0, 1)
export const STEP_MS = 30_000

/** Inserts `count` orders of one organization, 30 s apart, in one transaction. */
function insertOrders(db: ReturnType<typeof openDatabase>, orgId: string, userId: string, count: number) {
  const columns = '(id, org_id, user_id, status, amount, currency, created_at, updated_at)'
  const values = Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')
  const insert = db.prepare(`INSERT INTO orders ${columns} VALUES ${values}`)
  db.transaction(() => {
    for (let done = 0; done < count; done += ROWS_PER_INSERT) {
      const params: (string | number)[] = []
      for (let i = done; i < done + ROWS_PER_INSERT; i++) {
        const at = START + i * STEP_MS
        const time = new Date(at).toISOString()
        params.push(newId('ord', at), orgId, userId, STATUSES[i % 5]!, 100 + ((i * 7919) % 100_000))
        params.push(CURRENCIES[i % 3]!, time, time)
      }
      insert.run(...params)
    }
  })()
}

/** The bench database: migrated by the product, filled with raw INSERTs; built once, then reused. */
export async function ensureAggregatesDatabase(log: (line: string) => void): Promise<void> {
  const DB = AGGREGATES_DB
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
