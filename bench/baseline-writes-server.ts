/**
 * The write baseline ("raw insert"): raw `Bun.serve` + `bun:sqlite` inserting the order and
 * appending its event in one transaction, with no auth, validation, idempotency or framework.
 * `--durability` sets `synchronous` as the product does.
 *
 * By default into two bare tables of its own (a primary key each). With `--org ID --user ID`, into
 * the product's own tables of a database `api-server migrate` made (their indexes, foreign keys
 * and triggers), as that organization and user: what the schema alone costs a write.
 *
 * Run: bun bench/baseline-writes-server.ts --db FILE --durability full|fast [--org ID --user ID] --port N
 */
import { Database } from 'bun:sqlite'
import { parseArgs } from 'node:util'
import { newId } from '../shared/ids.ts'

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    durability: { type: 'string' },
    org: { type: 'string' },
    user: { type: 'string' },
    port: { type: 'string' },
  },
})
const db = new Database(values.db!, { create: true, strict: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA foreign_keys = ON')
db.run(values.durability === 'fast' ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = FULL')
const productSchema = values.org !== undefined
if (!productSchema) {
  db.run(`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL,
    amount INTEGER NOT NULL, currency TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT`)
  db.run(`CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, type TEXT NOT NULL, resource_id TEXT NOT NULL,
    data TEXT NOT NULL, created_at TEXT NOT NULL) STRICT`)
}
const insertOrder = productSchema
  ? db.query(
      `INSERT INTO orders (id, user_id, status, amount, currency, created_at, updated_at, org_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, '${values.org}')`,
    )
  : db.query('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)')
const insertEvent = productSchema
  ? db.query(
      `INSERT INTO events (id, type, resource_id, data, created_at, updated_at, org_id, resource)
       VALUES (?1, 'order.created', ?2, ?3, ?4, ?4, '${values.org}', 'orders')`,
    )
  : db.query("INSERT INTO events VALUES (?, 'order.created', ?, ?, ?)")

interface Order {
  id: string
  userId: string
  status: string
  amount: number
  currency: string
  createdAt: string
  updatedAt: string
}

const create = db.transaction((order: Order) => {
  insertOrder.run(
    order.id,
    order.userId,
    order.status,
    order.amount,
    order.currency,
    order.createdAt,
    order.updatedAt,
  )
  insertEvent.run(newId('evt'), order.id, JSON.stringify(order), order.createdAt)
})

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(values.port),
  async fetch(request) {
    // The bench waits for an answer to GET before it starts.
    if (request.method !== 'POST') return new Response(null, { status: 204 })
    const body = (await request.json()) as { userId: string; amount: { value: number; currency: string } }
    const now = new Date().toISOString()
    const order = {
      id: newId('ord'),
      userId: values.user ?? body.userId,
      status: 'pending',
      amount: body.amount.value,
      currency: body.amount.currency,
      createdAt: now,
      updatedAt: now,
    }
    create.immediate(order)
    return Response.json(order, { status: 201, headers: { Location: `/api/v2/orders/${order.id}` } })
  },
})
