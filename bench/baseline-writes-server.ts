/**
 * The write baseline: raw `Bun.serve` + `bun:sqlite` doing what the product's create does at the
 * database (one transaction: insert the order, append its event), with no auth, validation,
 * idempotency or framework. `--durability` sets `synchronous` as the product does.
 *
 * Run: bun bench/baseline-writes-server.ts --db FILE --durability full|fast --port N
 */
import { Database } from 'bun:sqlite'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { db: { type: 'string' }, durability: { type: 'string' }, port: { type: 'string' } },
})
const db = new Database(values.db!, { create: true, strict: true })
db.run('PRAGMA journal_mode = WAL')
db.run(values.durability === 'fast' ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = FULL')
db.run(`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL,
  amount INTEGER NOT NULL, currency TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT`)
db.run(`CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, type TEXT NOT NULL, resource_id TEXT NOT NULL,
  data TEXT NOT NULL, created_at TEXT NOT NULL) STRICT`)
const insertOrder = db.query('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)')
const insertEvent = db.query("INSERT INTO events VALUES (?, 'order.created', ?, ?, ?)")
const create = db.transaction((order: Record<string, string | number>) => {
  insertOrder.run(
    order.id!,
    order.userId!,
    order.status!,
    order.amount!,
    order.currency!,
    order.createdAt!,
    order.updatedAt!,
  )
  insertEvent.run(crypto.randomUUID(), order.id!, JSON.stringify(order), order.createdAt!)
})

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(values.port),
  async fetch(request) {
    // The bench waits for an answer to GET before it starts.
    if (request.method !== 'POST') return new Response(null, { status: 204 })
    const body = (await request.json()) as { userId: string; amount: number; currency: string }
    const now = new Date().toISOString()
    const order = {
      id: `ord_${crypto.randomUUID()}`,
      status: 'pending',
      ...body,
      createdAt: now,
      updatedAt: now,
    }
    create.immediate(order)
    return Response.json(order, { status: 201, headers: { Location: `/api/v1/orders/${order.id}` } })
  },
})
