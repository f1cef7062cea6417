/**
 * `npm run bench:aggregates`: the p50 latency of `GET /api/v2/orders/aggregates` over 1,000,000
 * orders of one organization, grouped by status (count and sum) and by day, against a raw
 * Bun.serve + bun:sqlite baseline running the hand-written GROUP BY over the same file
 * (bench/aggregates-baseline.ts), in the same run. The product runs with `--no-cache`: every
 * answer is computed, as the baseline's is. Writes its block of docs/performance.md ("Aggregates
 * over 1,000,000 orders"); `npm run bench` runs it too, for its row of the targets.
 */
import { join } from 'node:path'
import { openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { BASELINE_SQL } from './aggregates-baseline.ts'
import {
  AGGREGATES_DB,
  ensureAggregatesDatabase,
  ORDERS,
  OTHER_ORDERS,
  ROWS_PER_INSERT,
  STEP_MS,
} from './aggregates-database.ts'
import { writeResults } from './doc.ts'
import { machineMeter } from './machine.ts'
import { BUN, clientToken, type ServerProcess, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const DOC = join(ROOT, 'docs/performance.md')
const ROUNDS = 21
/** The product's speed at least this share of the baseline's (its p50 over the product's). */
export const AGGREGATE_TARGET = 0.8
const PATHS = {
  status: '/api/v2/orders/aggregates?group_by=status&aggregate=count,sum(amount)',
  day: '/api/v2/orders/aggregates?group_by=created_at:day',
}
type Request = keyof typeof PATHS

const log = (line: string) => console.log(`bench:aggregates: ${line}`)

/** The product's speed as a share of the baseline's (baseline p50 / product p50), by request. */
export type AggregatesResult = Record<Request, number>

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; body: string }> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`)
  return { ms: performance.now() - started, body }
}

/** A fresh confidential client of the first organization (its secret never stored), and that organization. */
async function benchClient(): Promise<{ orgId: string; id: string; secret: string }> {
  const db = openDatabase(AGGREGATES_DB)
  try {
    const orgId = (db.query('SELECT id FROM orgs ORDER BY created_at, id LIMIT 1').get() as { id: string }).id
    const store = sqliteStore(db, exampleSchema())
    const { client, secret } = await store.clients.create({
      name: 'bench',
      orgId,
      public: false,
      scope: ['read:orders'],
    })
    for (const [name, sql] of Object.entries(BASELINE_SQL)) {
      const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all(orgId, 21) as { detail: string }[]
      log(`baseline ${name}: ${plan.map((p) => p.detail).join('; ')}`)
    }
    return { orgId, id: client.id, secret: secret! }
  } finally {
    db.close()
  }
}

/** Both must answer the same groups before their speed is worth comparing. */
async function checkSameGroups(
  product: ServerProcess,
  baseline: ServerProcess,
  auth: Record<string, string>,
) {
  for (const [name, path] of Object.entries(PATHS)) {
    const mine = JSON.parse((await timed(`${product.url}${path}`, auth)).body) as { data: unknown[] }
    const theirs = JSON.parse((await timed(`${baseline.url}${path}`, {})).body) as { data: unknown[] }
    if (JSON.stringify(mine.data) !== JSON.stringify(theirs.data))
      throw new Error(`${name}: the product and the baseline answer different groups`)
  }
}

function markdown(samples: Record<Request, { product: number[]; baseline: number[] }>, machine: string) {
  const days = Math.floor(((ORDERS - 1) * STEP_MS) / 86_400_000) + 1
  const n = (value: number) => value.toLocaleString('en-US')
  const ratio = (r: Request) => p50(samples[r].baseline) / p50(samples[r].product)
  const missed = (Object.keys(PATHS) as Request[]).filter((r) => ratio(r) < AGGREGATE_TARGET)
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:aggregates\` (bench/aggregates.ts).`,
    '',
    `Method: a SQLite database under \`/tmp\`, built once with the product's own migrate and ${n(ORDERS)} orders of one organization (and ${n(OTHER_ORDERS)} of a second, so the organization condition has rows to leave out), inserted ${ROWS_PER_INSERT} rows a statement: statuses cycling through the five values, created ${STEP_MS / 1000} s apart over ${days} days, then \`ANALYZE\` (about 90 s; reused while it holds those orders). The product runs with \`--no-cache\` (every answer computed, as the baseline's is) against bench/aggregates-baseline.ts, a raw \`Bun.serve\` + \`bun:sqlite\` answering the same two requests with the GROUP BY a person would write by hand, in the same JSON shape. Both must first answer the same groups; then ${ROUNDS} requests of each kind on each, one at a time over loopback HTTP, alternating between the two, and the median (p50) of each. ${machine}`,
    '',
    "| request | product p50 | baseline p50 | product speed of the baseline's |",
    '|---|---|---|---|',
    ...(Object.entries(PATHS) as [Request, string][]).map(
      ([r, path]) =>
        `| \`GET ${path}\` | ${p50(samples[r].product).toFixed(1)} ms | ${p50(samples[r].baseline).toFixed(1)} ms | ${Math.round(ratio(r) * 100)}% |`,
    ),
    '',
    missed.length === 0
      ? `Both at or above the ${AGGREGATE_TARGET * 100}% target: **met**.`
      : `Below the ${AGGREGATE_TARGET * 100}% target: ${missed.join(', ')}: **missed**.`,
  ].join('\n')
}

/** Runs the aggregate benchmark, writes its block of docs/performance.md, and returns the ratios. */
export async function runAggregates(): Promise<AggregatesResult> {
  await ensureAggregatesDatabase(log)
  const client = await benchClient()
  const env = { API_RATE_LIMIT: '1000000000' }
  const serve = [BUN, 'server/main.ts', 'serve', '--host', '127.0.0.1', '--db', AGGREGATES_DB, '--no-cache']
  const servers: ServerProcess[] = []
  try {
    const product = await startServer('product --no-cache', serve, { cwd: ROOT, env })
    servers.push(product)
    const baselineArgs = ['bench/aggregates-baseline.ts', '--db', AGGREGATES_DB, '--org', client.orgId]
    const baseline = await startServer('baseline', [BUN, ...baselineArgs], { cwd: ROOT })
    servers.push(baseline)
    const token = await clientToken(product.url, client, 'read:orders')
    const auth = { Authorization: `Bearer ${token}` }
    await checkSameGroups(product, baseline, auth)
    const samples = {
      status: { product: [] as number[], baseline: [] as number[] },
      day: { product: [] as number[], baseline: [] as number[] },
    }
    const meter = machineMeter()
    // Alternating, so that both see the same machine at the same time.
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of Object.entries(PATHS) as [Request, string][]) {
        samples[name].product.push((await timed(`${product.url}${path}`, auth)).ms)
        samples[name].baseline.push((await timed(`${baseline.url}${path}`, {})).ms)
      }
      log(`round ${round + 1} of ${ROUNDS}`)
    }
    const text = markdown(samples, meter.describe('during the timed requests'))
    console.log(text)
    writeResults(DOC, 'aggregates', text)
    log('wrote docs/performance.md ("Aggregates over 1,000,000 orders")')
    return {
      status: p50(samples.status.baseline) / p50(samples.status.product),
      day: p50(samples.day.baseline) / p50(samples.day.product),
    }
  } finally {
    for (const server of servers) await server.stop()
  }
}

if (import.meta.main) {
  const result = await runAggregates()
  process.exit(Object.values(result).every((r) => r >= AGGREGATE_TARGET) ? 0 : 1)
}
