/**
 * The baseline the product is measured against: raw `Bun.serve` + `bun:sqlite` (or, for a
 * `postgres://` URL, `Bun.sql`) running the SQL the product runs for the same two requests,
 * answering the same JSON shape. No auth, no validation
 * beyond what the SQL needs, no ETag, no framework: the floor of what this stack costs.
 *
 * With `--product-headers` it also reads the `Authorization` header and answers with the header
 * set the product must send (docs/performance.md): what the HTTP semantics alone cost, apart from
 * any code that works them out. The values are fixed stand-ins of the same size, except the
 * request id and the successor link, which are made per request as the product makes them.
 *
 * Run: bun bench/baseline-server.ts --db FILE --org ORG_ID [--port 0] [--product-headers]
 */
import { Database } from 'bun:sqlite'
import { parseArgs } from 'node:util'
import { SQL } from 'bun'

interface OrderRow {
  id: string
  org_id: string
  user_id: string
  status: string
  /** PostgreSQL's bigint arrives as a string (Bun.sql), as it does for the product. */
  amount: number | string
  currency: string
  created_at: string
  updated_at: string
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' }

const toOrder = (row: OrderRow) => ({
  id: row.id,
  userId: row.user_id,
  status: row.status,
  amount: Number(row.amount),
  currency: row.currency,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const base64url = (text: string) => Buffer.from(text).toString('base64url')

/** The product's answer to a v1 read, header by header (Date and Content-Length come from Bun). */
const PRODUCT_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  ETag: '"10q7u00ob6av2-20m1b3uo350gs"',
  'Last-Modified': 'Thu, 04 Jan 2024 11:20:00 GMT',
  'Cache-Control': 'private, no-cache',
  Vary: 'Authorization',
  'X-Content-Type-Options': 'nosniff',
  'RateLimit-Policy': '"default";q=1000000000;w=60',
  RateLimit: '"default";r=999999999;t=60',
  Deprecation: '@1793491200;version="v1"',
  Sunset: 'Mon, 01 Nov 2027 00:00:00 GMT',
}
const ACCEPT_QUERY =
  '"application/x-www-form-urlencoded", "application/json", "application/sql", "application/jsonpath"'

/** The headers of one answer: the product's set, or only the content type. */
function answerHeaders(withProductHeaders: boolean, request: Request, path: string, collection: boolean) {
  if (!withProductHeaders) return JSON_HEADERS
  request.headers.get('authorization')
  return {
    ...PRODUCT_HEADERS,
    Link: `</api/v2${path.slice('/api/v1'.length)}>; rel="successor-version"`,
    'X-Request-Id': crypto.randomUUID(),
    ...(collection ? { 'Accept-Query': ACCEPT_QUERY } : {}),
  }
}

/** Opens the database as `openDatabase` does, but `synchronous = NORMAL`: it only reads, and reads never sync. */
function open(path: string): Database {
  const db = new Database(path, { strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA foreign_keys = ON')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA busy_timeout = 5000')
  return db
}

/** Starts the baseline on a loopback port; the organization stands in for the token's. */
export function startBaseline(options: {
  db: string
  orgId: string
  port: number
  productHeaders?: boolean
}) {
  const headers = options.productHeaders === true
  const source = /^postgres(ql)?:\/\//.test(options.db)
    ? postgresSource(options.db)
    : sqliteSource(options.db)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port,
    routes: {
      '/api/v1/orders': (request) => {
        const url = new URL(request.url)
        const status = url.searchParams.get('status') ?? 'pending'
        const limit = Number(url.searchParams.get('limit') ?? 20)
        const rows = source.list(options.orgId, status, limit + 1)
        return rows instanceof Promise
          ? rows.then((r) => listAnswer(request, url, r))
          : listAnswer(request, url, rows)
      },
      '/api/v1/orders/:id': (request) => {
        const row = source.byId(request.params.id)
        return row instanceof Promise ? row.then((r) => oneAnswer(request, r)) : oneAnswer(request, row)
      },
    },
    fetch: () => new Response(null, { status: 404 }),
  })

  function listAnswer(request: Request, url: URL, rows: OrderRow[]): Response {
    const status = url.searchParams.get('status') ?? 'pending'
    const limit = Number(url.searchParams.get('limit') ?? 20)
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
    return new Response(JSON.stringify(body), {
      headers: answerHeaders(headers, request, url.pathname, true),
    })
  }

  function oneAnswer(request: Request & { params: { id: string } }, row: OrderRow | null): Response {
    if (!row) return new Response('{"error":{"code":"NOT_FOUND"}}', { status: 404, headers: JSON_HEADERS })
    return new Response(JSON.stringify(toOrder(row)), {
      headers: answerHeaders(headers, request, `/api/v1/orders/${request.params.id}`, false),
    })
  }

  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true).then(() => source.close()) }
}

/** Where the baseline reads orders: the same two statements on either database. */
interface OrderSource {
  list(orgId: string, status: string, limit: number): OrderRow[] | Promise<OrderRow[]>
  byId(id: string): OrderRow | null | Promise<OrderRow | null>
  close(): void | Promise<void>
}

function sqliteSource(path: string): OrderSource {
  const db = open(path)
  const list = db.query<OrderRow, [string, string, number]>(
    'SELECT * FROM orders WHERE org_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ?',
  )
  const byId = db.query<OrderRow, [string]>('SELECT * FROM orders WHERE id = ?')
  return { list: (...args) => list.all(...args), byId: (id) => byId.get(id), close: () => db.close() }
}

/** Bun.sql, prepared statements, a pool as the product's: the floor of the stack on PostgreSQL. */
function postgresSource(url: string): OrderSource {
  const sql = new SQL(url, { max: 10 })
  return {
    list: async (orgId, status, limit) =>
      [
        ...(await sql`SELECT * FROM orders WHERE org_id = ${orgId} AND status = ${status}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`),
      ] as OrderRow[],
    byId: async (id) => ((await sql`SELECT * FROM orders WHERE id = ${id}`)[0] ?? null) as OrderRow | null,
    close: () => sql.close(),
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      org: { type: 'string' },
      port: { type: 'string', default: '0' },
      'product-headers': { type: 'boolean', default: false },
    },
  })
  if (!values.db || !values.org) {
    console.error('usage: bun bench/baseline-server.ts --db FILE --org ORG_ID [--port N] [--product-headers]')
    process.exit(2)
  }
  const baseline = startBaseline({
    db: values.db,
    orgId: values.org,
    port: Number(values.port),
    productHeaders: values['product-headers'],
  })
  console.log(`baseline listening on ${baseline.url}`)
  const stop = () => baseline.stop().then(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
