import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { systemPrincipal } from '../server/admin/system.ts'
import type { EngineContext } from '../server/resources/context.ts'
import { CursorCodec } from '../server/resources/cursor.ts'
import { prepareCreate } from '../server/resources/writes.ts'
import { type Database, migrateDatabase, openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import type { Store } from '../server/store/store.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { users } from '../shared/resources/users.ts'
import { example, valuesOf } from '../test/support/example.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')
const orders = example('orders')

export const ORGS = 10
export const ORDERS_PER_ORG = 10_000
/** Where the database is cached, relative to the repository (gitignored). */
export const DATABASE_FILE = `bench/.cache/orders-${ORGS}x${ORDERS_PER_ORG}.db`
const CURRENCIES = ['EUR', 'USD', 'GBP'] as const
// Orders are spread 30 s apart from here on, so created_at values differ like real traffic does.
const START = Date.UTC(2024, 0, 1)
const STEP_MS = 30_000

export interface BenchTenant {
  orgId: string
  clientId: string
  clientSecret: string
  /** A sample of the organization's order ids, for GET by id. */
  orderIds: string[]
}

/** Fills an empty database through the engine (`prepareCreate`), so rows and events are what the API writes. */
async function fillDatabase(db: Database): Promise<void> {
  await fillStore(sqliteStore(db, exampleSchema()))
}

/** Fills an empty store (either backend) with ORGS organizations of ORDERS_PER_ORG orders. */
async function fillStore(store: Store): Promise<void> {
  let tick = 0
  const engine: EngineContext = {
    store,
    schema: store.schema,
    clock: () => START + tick * STEP_MS,
    cursors: new CursorCodec(crypto.getRandomValues(new Uint8Array(32))),
  }
  for (let n = 0; n < ORGS; n++) {
    const org = await store.orgs.create(`Bench Org ${n + 1}`)
    const principal = systemPrincipal(store.schema, org.id)
    // One transaction per organization: 10,000 orders commit once, not 10,000 times.
    await store.transaction(async (tx) => {
      const ctx = { ...engine, store: tx }
      const user = await prepareCreate(ctx, principal, users, {
        name: `Owner ${n + 1}`,
        email: `owner${n + 1}@bench.example`,
        role: 'admin',
      }).apply(ctx)
      for (let i = 0; i < ORDERS_PER_ORG; i++) {
        tick++
        await prepareCreate(ctx, principal, orders, {
          userId: user.id,
          status: ORDER_STATUSES[i % ORDER_STATUSES.length],
          amount: 100 + ((i * 7919) % 100_000),
          currency: CURRENCIES[i % CURRENCIES.length],
        }).apply(ctx)
      }
    })
  }
}

/** How many orders the bench database at `path` holds; -1 when it is missing or unreadable. */
export function orderCount(path: string): number {
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

/**
 * The benchmark database at `path`: reused when it holds the expected orders, otherwise built
 * next to it and moved into place, so an interrupted build never leaves a half-filled cache.
 */
export async function ensureDatabase(path: string, log: (line: string) => void): Promise<void> {
  if (orderCount(path) === ORGS * ORDERS_PER_ORG) {
    log(`reusing ${path}`)
    return
  }
  // openDatabase creates no directory; the cache's is made here, on the first build.
  mkdirSync(dirname(path), { recursive: true })
  const building = `${path}.building`
  for (const file of [building, `${building}-wal`, `${building}-shm`]) rmSync(file, { force: true })
  const started = performance.now()
  const db = openDatabase(building)
  try {
    await migrateDatabase(db, exampleSchema())
    await fillDatabase(db)
    db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true })
  renameSync(building, path)
  rmSync(`${building}-wal`, { force: true })
  rmSync(`${building}-shm`, { force: true })
  log(`built ${path} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/**
 * A fresh confidential client (read:orders only, unless `scope` says otherwise) in the first
 * organization, and some of its order ids. A new client each run: its secret is never stored on disk.
 */
export async function benchTenant(
  path: string,
  sampleSize: number,
  scope: string[] = ['read:orders'],
): Promise<BenchTenant> {
  const db = openDatabase(path)
  const store = sqliteStore(db, exampleSchema())
  try {
    const first = db.query<{ id: string }, []>('SELECT id FROM orgs ORDER BY created_at, id LIMIT 1').get()
    if (!first) throw new Error(`${path} has no organization`)
    const orgId = first.id
    const { client, secret } = await store.clients.create({
      name: 'bench',
      orgId,
      public: false,
      scope,
    })
    // Spread over the whole organization, so lookups do not all hit the same few pages.
    const sample = db.query<{ id: string }, [string, number]>(
      'SELECT id FROM orders WHERE org_id = ? ORDER BY random() LIMIT ?',
    )
    const orderIds = sample.all(orgId, sampleSize).map((r) => r.id)
    return { orgId, clientId: client.id, clientSecret: secret!, orderIds }
  } finally {
    db.close()
  }
}
