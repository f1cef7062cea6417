/**
 * The baseline the product is measured against: raw `Bun.serve` + `bun:sqlite` running the SQL the
 * product runs for the same two requests, answering the same JSON shape. No auth, no validation
 * beyond what the SQL needs, no ETag, no framework: the floor of what this stack costs.
 *
 * Run: bun bench/baseline-server.ts --db FILE --org ORG_ID [--port 0]
 */
import { Database } from 'bun:sqlite'
import { parseArgs } from 'node:util'

interface OrderRow {
  id: string
  org_id: string
  user_id: string
  status: string
  amount: number
  currency: string
  created_at: string
  updated_at: string
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' }

const toOrder = (row: OrderRow) => ({
  id: row.id,
  userId: row.user_id,
  status: row.status,
  amount: row.amount,
  currency: row.currency,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const base64url = (text: string) => Buffer.from(text).toString('base64url')

/** Opens the database with the pragmas `openDatabase` sets, so both servers read it the same way. */
function open(path: string): Database {
  const db = new Database(path, { strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA foreign_keys = ON')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA busy_timeout = 5000')
  return db
}

/** Starts the baseline on a loopback port; the organization stands in for the token's. */
export function startBaseline(options: { db: string; orgId: string; port: number }) {
  const db = open(options.db)
  const list = db.query<OrderRow, [string, string, number]>(
    'SELECT * FROM orders WHERE org_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ?',
  )
  const byId = db.query<OrderRow, [string]>('SELECT * FROM orders WHERE id = ?')
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port,
    routes: {
      '/api/v1/orders': (request) => {
        const url = new URL(request.url)
        const status = url.searchParams.get('status') ?? 'pending'
        const limit = Number(url.searchParams.get('limit') ?? 20)
        const rows = list.all(options.orgId, status, limit + 1)
        const hasMore = rows.length > limit
        if (hasMore) rows.pop()
        const last = rows.at(-1)
        // Same envelope as the product's cursor pagination; the cursor carries no MAC here.
        const nextCursor = hasMore && last ? base64url(JSON.stringify([last.created_at, last.id])) : null
        const params = new URLSearchParams(url.searchParams)
        if (nextCursor) params.set('cursor', nextCursor)
        const body = {
          data: rows.map(toOrder),
          pagination: { limit, hasMore, nextCursor, next: nextCursor ? `${url.pathname}?${params}` : null },
          filters: { status },
        }
        return new Response(JSON.stringify(body), { headers: JSON_HEADERS })
      },
      '/api/v1/orders/:id': (request) => {
        const row = byId.get(request.params.id)
        if (!row)
          return new Response('{"error":{"code":"NOT_FOUND"}}', { status: 404, headers: JSON_HEADERS })
        return new Response(JSON.stringify(toOrder(row)), { headers: JSON_HEADERS })
      },
    },
    fetch: () => new Response(null, { status: 404 }),
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true).then(() => db.close()) }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { db: { type: 'string' }, org: { type: 'string' }, port: { type: 'string', default: '0' } },
  })
  if (!values.db || !values.org) {
    console.error('usage: bun bench/baseline-server.ts --db FILE --org ORG_ID [--port N]')
    process.exit(2)
  }
  const baseline = startBaseline({ db: values.db, orgId: values.org, port: Number(values.port) })
  console.log(`baseline listening on ${baseline.url}`)
  const stop = () => baseline.stop().then(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
