/**
 * `npm run bench:size`: the order list's latency as one organization grows from 10,000 to
 * 1,000,000 orders: the first page, page 1,000 reached by following cursors, and the first page
 * with `include_total=true`. One server per size, all with `--no-cache` (so every answer is read
 * from the database), measured in alternating rounds. Writes the results into docs/performance.md.
 */

import { Database } from 'bun:sqlite'
import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { newId } from '../shared/ids.ts'
import { valuesOf } from '../test/support/example.ts'
import { orderCount } from './build-database.ts'
import { writeResults } from './doc.ts'
import {
  adminCommand,
  BUN,
  clientToken,
  machineBusySeconds,
  type ServerProcess,
  startServer,
} from './processes.ts'

const ORDER_STATUSES = valuesOf('orders', 'status')

const ROOT = join(import.meta.dir, '..')
const DOC = join(ROOT, 'docs/performance.md')
const SIZES = [10_000, 100_000, 1_000_000]
/** Ten per page, so 10,000 orders hold exactly 1,000 pages. */
const PAGE = 10
const DEEP_PAGE = 1000
const LIST = `/api/v1/orders?limit=${PAGE}`
/** The same list filtered to one status in five (an index on status exists, not one on status and the sort). */
const PAID = `/api/v1/orders?status=paid&limit=${PAGE}`
const ROUNDS = 6
/** Requests of each kind per server and round; `include_total` far fewer (it counts every row). */
const PER_ROUND = 50
const TOTAL_PER_ROUND = 5
const CURRENCIES = ['EUR', 'USD', 'GBP'] as const
const START = Date.UTC(2024, 0, 1)
const STEP_MS = 30_000

const log = (line: string) => console.log(`bench:size: ${line}`)
const file = (orders: number) => join(ROOT, `bench/.cache/orders-1x${orders}.db`)

/**
 * A database with one organization, one user and `orders` orders (created 30 s apart, statuses
 * cycling), migrated by the product and filled with prepared inserts in one transaction; cached in
 * bench/.cache/ and reused while it holds that many orders. No events are written for the orders.
 */
async function ensureSizedDatabase(orders: number): Promise<string> {
  const path = file(orders)
  if (orderCount(path) === orders) {
    log(`reusing ${path}`)
    return path
  }
  mkdirSync(join(ROOT, 'bench/.cache'), { recursive: true })
  const building = `${path}.building`
  for (const f of [building, `${building}-wal`, `${building}-shm`]) rmSync(f, { force: true })
  const started = performance.now()
  await adminCommand(building, 'migrate')
  const org = await adminCommand(building, 'org', 'create', '--name', `Size ${orders}`)
  const user = await adminCommand(
    building,
    'user',
    'create',
    '--org',
    org.id!,
    '--email',
    'owner@size.example',
    '--name',
    'Owner',
    '--role',
    'admin',
    '--password',
    crypto.randomUUID(),
  )
  const db = new Database(building)
  try {
    db.run('PRAGMA synchronous = OFF')
    const insert = db.prepare(
      'INSERT INTO orders (id, org_id, user_id, status, amount, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    db.transaction(() => {
      for (let i = 0; i < orders; i++) {
        const ms = START + i * STEP_MS
        const at = new Date(ms).toISOString()
        insert.run(
          newId('ord', ms),
          org.id!,
          user.id!,
          ORDER_STATUSES[i % ORDER_STATUSES.length]!,
          100 + ((i * 7919) % 100_000),
          CURRENCIES[i % CURRENCIES.length]!,
          at,
          at,
        )
      }
    })()
    db.run('ANALYZE')
    db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
  renameSync(building, path)
  for (const f of [`${building}-wal`, `${building}-shm`]) rmSync(f, { force: true })
  log(`built ${path} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return path
}

interface Sized {
  orders: number
  server: ServerProcess
  headers: Record<string, string>
  deepPath: string
  first: number[]
  paid: number[]
  deep: number[]
  total: number[]
  totalValue: number
}

async function sized(orders: number): Promise<Sized> {
  const path = await ensureSizedDatabase(orders)
  const source = new Database(path, { readonly: true })
  const org = source.query<{ id: string }, []>('SELECT id FROM orgs LIMIT 1').get()!
  source.close()
  const client = await adminCommand(
    path,
    'client',
    'create',
    '--name',
    'bench-size',
    '--org',
    org.id,
    '--grant-types',
    'client_credentials',
    '--scope',
    'read:orders',
  )
  const argv = [
    BUN,
    'server/main.ts',
    'serve',
    '--db',
    path,
    '--no-cache',
    '--rate-limit',
    '0',
    '--log-level',
    'warn',
  ]
  const server = await startServer(`${orders} orders`, argv, { cwd: ROOT })
  const token = await clientToken(server.url, { id: client.client_id!, secret: client.client_secret! })
  const headers = { Authorization: `Bearer ${token}` }
  // Walk the cursors once to page DEEP_PAGE; its path is then requested again and again.
  let path_ = LIST
  let last: { id: string; createdAt: string } | undefined
  for (let page = 1; page < DEEP_PAGE; page++) {
    const response = await fetch(`${server.url}${path_}`, { headers })
    const body = (await response.json()) as {
      data: { id: string; createdAt: string }[]
      pagination: { next: string | null }
    }
    if (response.status !== 200 || !body.pagination.next)
      throw new Error(`${orders}: page ${page} has no next`)
    path_ = body.pagination.next
    last = body.data.at(-1)
  }
  // Page DEEP_PAGE must hold the orders right after page DEEP_PAGE - 1's last, newest first.
  const response = await fetch(`${server.url}${path_}`, { headers })
  const deep = (await response.json()) as { data: { createdAt: string }[] }
  const expected = new Date(START + (orders - (DEEP_PAGE - 1) * PAGE - 1) * STEP_MS).toISOString()
  if (response.status !== 200 || deep.data.length !== PAGE || deep.data[0]!.createdAt !== expected)
    throw new Error(
      `${orders}: page ${DEEP_PAGE} starts at ${deep.data[0]?.createdAt}, not ${expected} (after ${last?.id})`,
    )
  return {
    orders,
    server,
    headers,
    deepPath: path_,
    first: [],
    paid: [],
    deep: [],
    total: [],
    totalValue: -1,
  }
}

async function timed(s: Sized, path: string): Promise<{ ms: number; body: unknown }> {
  const started = performance.now()
  const response = await fetch(`${s.server.url}${path}`, { headers: s.headers })
  const body = await response.json()
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`${s.orders}: ${path} answered ${response.status}`)
  return { ms, body }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export interface SizeResult {
  /** The slowest of the six p50s over the fastest (first page and page 1,000 at each size). */
  spread: number
  /** include_total's p50 at the largest size, in ms. */
  totalMs: number
}

/** Runs the size benchmark, writes its block of docs/performance.md, and returns its verdict's figures. */
export async function runSize(): Promise<SizeResult> {
  const servers: Sized[] = []
  try {
    for (const orders of SIZES) servers.push(await sized(orders))
    // Warm-up: the pages and the count once through each server.
    for (const s of servers) {
      for (let i = 0; i < 20; i++) await timed(s, LIST)
      for (let i = 0; i < 20; i++) await timed(s, PAID)
      for (let i = 0; i < 20; i++) await timed(s, s.deepPath)
      await timed(s, `${LIST}&include_total=true`)
    }
    const machine = machineBusySeconds()
    const started = performance.now()
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < servers.length; i++) {
        const s = servers[(r + i) % servers.length]!
        // The two pages interleaved, so a slow spell weighs on both.
        for (let k = 0; k < PER_ROUND; k++) {
          s.first.push((await timed(s, LIST)).ms)
          s.paid.push((await timed(s, PAID)).ms)
          s.deep.push((await timed(s, s.deepPath)).ms)
        }
        for (let k = 0; k < TOTAL_PER_ROUND; k++) {
          const { ms, body } = await timed(s, `${LIST}&include_total=true`)
          s.total.push(ms)
          s.totalValue = (body as { pagination: { total: number } }).pagination.total
        }
      }
      log(`round ${r + 1} of ${ROUNDS}`)
    }
    const busyCores = (machineBusySeconds() - machine) / ((performance.now() - started) / 1000)
    for (const s of servers)
      if (s.totalValue !== s.orders) throw new Error(`${s.orders}: include_total counted ${s.totalValue}`)
    const p50s = servers.flatMap((s) => [median(s.first), median(s.deep)])
    const spread = Math.max(...p50s) / Math.min(...p50s)
    const met = spread <= 1.2
    const pct = (values: number[]) => Math.round(100 * (Math.max(...values) / Math.min(...values) - 1))
    const big = servers.at(-1)!
    const row = (s: Sized) =>
      `| ${s.orders.toLocaleString('en')} | ${median(s.first).toFixed(2)} | ${median(s.deep).toFixed(2)} | ${Math.round((100 * median(s.deep)) / median(s.first))}% | ${median(s.paid).toFixed(2)} | ${median(s.total).toFixed(1)} | ${Math.round(median(s.total) / median(s.first))} x |`
    const text = [
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:size\`.`,
      '',
      `| orders in the organization | first page p50 ms | page ${DEEP_PAGE.toLocaleString('en')} p50 ms | page ${DEEP_PAGE.toLocaleString('en')} / first | first page, \`status=paid\`, p50 ms | first page with \`include_total\` p50 ms | \`include_total\` / first |`,
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...servers.map(row),
      '',
      `- The slowest of the six p50s (first page and page ${DEEP_PAGE.toLocaleString('en')}, at ${SIZES.map((n) => n.toLocaleString('en')).join(', ')} orders) is **${Math.round(100 * (spread - 1))}% above the fastest** (target: within 20%): **${met ? 'met' : 'missed'}**.`,
      `- Apart: across the sizes the first page's p50s are within ${pct(servers.map((s) => median(s.first)))}% of each other and page ${DEEP_PAGE.toLocaleString('en')}'s within ${pct(servers.map((s) => median(s.deep)))}%; at each size page ${DEEP_PAGE.toLocaleString('en')} takes ${servers.map((s) => `${Math.round((100 * median(s.deep)) / median(s.first))}%`).join(', ')} of the first page's time.`,
      `- \`include_total=true\` at ${big.orders.toLocaleString('en')} orders: p50 **${median(big.total).toFixed(1)} ms** (it counts every order of the organization, on each request).`,
      `- The machine (${cpus().length} cores) was busy ${busyCores.toFixed(2)} cores on average during the measured rounds, this process and the server under test included: the figures are latencies on a shared machine; compare the rows of one run.`,
      '',
      `Data: one organization with 10,000, 100,000 and 1,000,000 orders (one database each, built with prepared inserts in one transaction into a database the product migrated; no events). Each size has its own server with \`--no-cache\`. Requests: \`GET ${LIST}\` (newest first), the same with \`status=paid\`, and page ${DEEP_PAGE.toLocaleString('en')}, its cursor found by following \`next\` from the first page once (at 10,000 orders it is the last page); one request at a time, ${ROUNDS} rounds alternating between the servers, ${ROUNDS * PER_ROUND} requests of each page (and of the filtered first page) and ${ROUNDS * TOTAL_PER_ROUND} with \`include_total=true\` per size. Latency is the client's, over loopback HTTP.`,
    ].join('\n')
    console.log(text)
    writeResults(DOC, 'size', text)
    return { spread, totalMs: median(big.total) }
  } finally {
    for (const s of servers) await s.server.stop()
  }
}

if (import.meta.main) await runSize()
