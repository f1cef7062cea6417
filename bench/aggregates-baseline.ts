/**
 * The floor the aggregates are measured against: raw `Bun.serve` + `bun:sqlite` running, for the
 * same two requests, the GROUP BY a person would write by hand, answering the same JSON shape. No
 * auth, no parameter parsing, no ETag, no framework.
 *
 * Run: bun bench/aggregates-baseline.ts --db FILE --org ORG_ID [--port 0]
 */
import { Database } from 'bun:sqlite'
import { parseArgs } from 'node:util'

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' }
const LIMIT = 20

/** The statements, by the product's request they stand for (docs/performance.md prints them). */
export const BASELINE_SQL = {
  status:
    'SELECT status, count(*) AS count, sum(amount) AS sum FROM orders WHERE org_id = ? ' +
    'GROUP BY status ORDER BY status LIMIT ?',
  day:
    "SELECT substr(created_at, 1, 10) || 'T00:00:00.000Z' AS day, count(*) AS count FROM orders " +
    'WHERE org_id = ? GROUP BY day ORDER BY day LIMIT ?',
}

interface Row {
  status?: string
  day?: string
  count: number
  sum?: number
}

function answer(items: unknown[], hasMore: boolean): Response {
  const body = { data: items, pagination: { limit: LIMIT, hasMore, nextCursor: null, next: null } }
  return new Response(JSON.stringify(body), { headers: JSON_HEADERS })
}

function start(path: string, orgId: string, port: number) {
  const db = new Database(path, { readonly: true, strict: true })
  const byStatus = db.query<Row, [string, number]>(BASELINE_SQL.status)
  const byDay = db.query<Row, [string, number]>(BASELINE_SQL.day)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    routes: {
      '/api/v2/orders/aggregates': (request) => {
        const url = new URL(request.url)
        if (url.searchParams.get('group_by') === 'status') {
          const rows = byStatus.all(orgId, LIMIT + 1)
          const items = rows.slice(0, LIMIT).map((r) => ({ status: r.status, count: r.count, sum: { amount: r.sum } }))
          return answer(items, rows.length > LIMIT)
        }
        const rows = byDay.all(orgId, LIMIT + 1)
        const items = rows.slice(0, LIMIT).map((r) => ({ createdAt: r.day, count: r.count }))
        return answer(items, rows.length > LIMIT)
      },
    },
    fetch: () => new Response(null, { status: 404 }),
  })
  return server
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { db: { type: 'string' }, org: { type: 'string' }, port: { type: 'string', default: '0' } },
  })
  if (!values.db || !values.org) {
    console.error('usage: bun bench/aggregates-baseline.ts --db FILE --org ORG_ID [--port N]')
    process.exit(2)
  }
  const server = start(values.db, values.org, Number(values.port))
  process.once('SIGTERM', () => {
    server.stop(true)
    process.exit(0)
  })
}
