/**
 * `npm run bench:mix`: 90% reads and 10% writes in one organization, against the product with its
 * response cache (the default) and with `--no-cache`, in alternating rounds, each server on its own
 * copy of the benchmark database. Every acknowledged write is followed by a read that must reflect
 * it; a read that does not is counted as stale. Writes the results into docs/performance.md.
 */

import { Database } from 'bun:sqlite'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { DATABASE_FILE, ensureDatabase, ORDERS_PER_ORG, ORGS } from './build-database.ts'
import { writeResults } from './doc.ts'
import {
  adminCommand,
  BUN,
  clientToken,
  machineBusySeconds,
  type ServerProcess,
  startServer,
} from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const DOC = join(ROOT, 'docs/performance.md')
const WORKERS = 32
const WARMUP_S = 2
const ROUNDS = 5
const ROUND_S = 3
/** One request in WRITE_EVERY is a write. */
const WRITE_EVERY = 10
const LIST_PATH = '/api/v1/orders?status=paid&limit=20'
const OWNED_IDS = 1000
// Every PATCH writes an amount no earlier write used, so an old answer can never pass for the new one.
let amountSeq = 0

const log = (line: string) => console.log(`bench:mix: ${line}`)

interface Target {
  name: string
  server: ServerProcess
  headers: Record<string, string>
  requests: number
  reads: number
  writes: number
  checks: number
  stale: number
  seconds: number
  serverCpuS: number
  machineCpuS: number
  latencies: number[]
}

async function target(name: string, db: string, orgId: string, flags: string[]): Promise<Target> {
  const client = await adminCommand(
    db,
    'client',
    'create',
    '--name',
    'bench-mix',
    '--org',
    orgId,
    '--grant-types',
    'client_credentials',
    '--scope',
    'read:orders write:orders',
  )
  const argv = [
    BUN,
    'server/main.ts',
    'serve',
    '--db',
    db,
    '--rate-limit',
    '0',
    '--log-level',
    'warn',
    ...flags,
  ]
  const server = await startServer(name, argv, { cwd: ROOT })
  const token = await clientToken(server.url, { id: client.client_id!, secret: client.client_secret! })
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
  return {
    name,
    server,
    headers,
    requests: 0,
    reads: 0,
    writes: 0,
    checks: 0,
    stale: 0,
    seconds: 0,
    serverCpuS: 0,
    machineCpuS: 0,
    latencies: [],
  }
}

interface Order {
  id: string
  amount: number
  createdAt: string
}

/**
 * WORKERS clients for `seconds`, each sending one write in WRITE_EVERY requests (alternately a
 * create of a paid order, which lands on the listed page, and a PATCH of one of its own orders),
 * the rest reads (alternately the list and a GET by id of one of its own orders). The read right
 * after an acknowledged write checks it: after a create, the list must hold the new order or only
 * newer ones; after a PATCH, GET by id must show the new amount.
 */
async function round(t: Target, seconds: number, owned: string[][], userId: string, measured: boolean) {
  const until = performance.now() + seconds * 1000
  const url = t.server.url
  const worker = async (w: number) => {
    const mine = owned[w]!
    let n = w % WRITE_EVERY
    let check: { kind: 'create'; order: Order } | { kind: 'patch'; id: string; amount: number } | null = null
    let writes = 0
    const out = { requests: 0, reads: 0, writes: 0, checks: 0, stale: 0, latencies: [] as number[] }
    while (performance.now() < until) {
      n++
      const started = performance.now()
      if (n % WRITE_EVERY === 0) {
        writes++
        amountSeq++
        const amount = 100 + amountSeq
        if (writes % 2 === 0) {
          const response = await fetch(`${url}/api/v1/orders`, {
            method: 'POST',
            headers: t.headers,
            body: JSON.stringify({ userId, status: 'paid', amount, currency: 'EUR' }),
          })
          const body = (await response.json()) as Order
          if (response.status !== 201) throw new Error(`${t.name}: POST answered ${response.status}`)
          check = { kind: 'create', order: body }
        } else {
          const id = mine[writes % mine.length]!
          const response = await fetch(`${url}/api/v1/orders/${id}`, {
            method: 'PATCH',
            headers: t.headers,
            body: JSON.stringify({ amount }),
          })
          await response.arrayBuffer()
          if (response.status !== 200) throw new Error(`${t.name}: PATCH answered ${response.status}`)
          check = { kind: 'patch', id, amount }
        }
        out.writes++
      } else if (check?.kind === 'create' || (!check && n % 2 === 0)) {
        const response = await fetch(`${url}${LIST_PATH}`, { headers: t.headers })
        const body = (await response.json()) as { data: Order[] }
        if (response.status !== 200) throw new Error(`${t.name}: list answered ${response.status}`)
        if (check?.kind === 'create') {
          const { order } = check
          const last = body.data.at(-1)
          const seen =
            body.data.some((o) => o.id === order.id) ||
            (body.data.length === 20 && last !== undefined && last.createdAt > order.createdAt)
          out.checks++
          if (!seen) out.stale++
          check = null
        }
        out.reads++
      } else {
        const id = check?.kind === 'patch' ? check.id : mine[n % mine.length]!
        const response = await fetch(`${url}/api/v1/orders/${id}`, { headers: t.headers })
        const body = (await response.json()) as Order
        if (response.status !== 200) throw new Error(`${t.name}: GET answered ${response.status}`)
        if (check?.kind === 'patch') {
          out.checks++
          if (body.amount !== check.amount) out.stale++
          check = null
        }
        out.reads++
      }
      out.requests++
      out.latencies.push(performance.now() - started)
    }
    return out
  }
  const cpu = t.server.cpuSeconds()
  const machine = machineBusySeconds()
  const started = performance.now()
  const results = await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))
  if (!measured) return
  t.seconds += (performance.now() - started) / 1000
  t.serverCpuS += t.server.cpuSeconds() - cpu
  t.machineCpuS += machineBusySeconds() - machine
  for (const r of results) {
    t.requests += r.requests
    t.reads += r.reads
    t.writes += r.writes
    t.checks += r.checks
    t.stale += r.stale
    for (const ms of r.latencies) t.latencies.push(ms)
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}

export interface MixResult {
  /** The cached product's req/s over `--no-cache`'s. */
  ratio: number
  /** Reads that missed an acknowledged write, with the cache; and how many writes were checked. */
  stale: number
  checks: number
  /** The same without the cache, where a stale read would be a bug of the database path. */
  staleWithoutCache: number
}

/** Runs the mix, writes its block of docs/performance.md, and returns its verdict's figures. */
export async function runMix(): Promise<MixResult> {
  const dir = mkdtempSync(join(tmpdir(), 'api-bench-mix-'))
  const targets: Target[] = []
  try {
    await ensureDatabase(join(ROOT, DATABASE_FILE), log)
    const source = new Database(join(ROOT, DATABASE_FILE), { readonly: true })
    const org = source.query<{ id: string }, []>('SELECT id FROM orgs ORDER BY created_at, id LIMIT 1').get()!
    const user = source
      .query<{ id: string }, [string]>('SELECT id FROM users WHERE org_id = ? LIMIT 1')
      .get(org.id)!
    const sample = source
      .query<{ id: string }, [string, number]>(
        'SELECT id FROM orders WHERE org_id = ? ORDER BY random() LIMIT ?',
      )
      .all(org.id, OWNED_IDS)
      .map((r) => r.id)
    source.close()
    // Each worker owns its own orders, so no other worker's PATCH can change what its check reads.
    const owned = Array.from({ length: WORKERS }, (_, w) => sample.filter((_, i) => i % WORKERS === w))
    for (const [name, flags] of [
      ['product', []],
      ['product --no-cache', ['--no-cache']],
    ] as const) {
      const db = join(dir, `${name.replace(/\W+/g, '-')}.db`)
      copyFileSync(join(ROOT, DATABASE_FILE), db)
      targets.push(await target(name, db, org.id, [...flags]))
    }
    for (const t of targets) await round(t, WARMUP_S, owned, user.id, false)
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(r + i) % targets.length]!
        await round(t, ROUND_S, owned, user.id, true)
        log(`round ${r + 1}: ${t.name}`)
      }
    }
    const [cached, cold] = targets as [Target, Target]
    const rate = (t: Target) => t.requests / t.seconds
    const perCore = (t: Target) => t.requests / t.serverCpuS
    const ratio = rate(cached) / rate(cold)
    const met = ratio >= 1 && cached.stale === 0
    const other = Math.max(...targets.map((t) => (t.machineCpuS - t.serverCpuS) / t.seconds))
    const row = (t: Target) =>
      `| ${t.name} | ${Math.round(rate(t))} | ${Math.round(t.writes / t.seconds)} | ${Math.round(perCore(t))} | ${quantile(t.latencies, 0.5).toFixed(2)} | ${quantile(t.latencies, 0.99).toFixed(2)} | ${(t.serverCpuS / t.seconds).toFixed(2)} | ${t.checks} | ${t.stale} | ${Math.round((100 * rate(t)) / rate(cold))}% |`
    const text = [
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:mix\`.`,
      '',
      '| server | req/s | of which writes/s | req/s per server core | p50 ms | p99 ms | server CPU | checked writes | stale reads | vs --no-cache |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      row(cached),
      row(cold),
      '',
      `- The cached product serves **${Math.round(100 * ratio)}%** of the same mix's requests per second with \`--no-cache\` (target 100%), per server core ${Math.round((100 * perCore(cached)) / perCore(cold))}%, with **${cached.stale} stale reads** out of ${cached.checks} checked writes (target 0): **${met ? 'met' : 'missed'}**. With \`--no-cache\`: ${cold.stale} stale of ${cold.checks}.`,
      `- Other processes used up to ${other.toFixed(2)} cores of this ${cpus().length}-core machine besides the server (the load generator, this process, among them): compare the two rows, not the absolute figures.`,
      '',
      `Data: a copy of the benchmark database (${(ORGS * ORDERS_PER_ORG).toLocaleString('en')} orders in ${ORGS} organizations) per server; all requests in the first organization. Load: ${WORKERS} concurrent clients (fetch, in the bench process), one request in ${WRITE_EVERY} a write (alternately a create of a paid order and a PATCH of the amount of one of the client's own ${Math.floor(OWNED_IDS / WORKERS)} or ${Math.ceil(OWNED_IDS / WORKERS)} orders), the other reads alternately \`GET ${LIST_PATH}\` and a GET by id of one of the client's own orders; ${WARMUP_S} s warm-up each, then ${ROUNDS} rounds of ${ROUND_S} s alternating between the servers. Default durability (\`full\`).`,
    ].join('\n')
    console.log(text)
    writeResults(DOC, 'mix', text)
    return { ratio, stale: cached.stale, checks: cached.checks, staleWithoutCache: cold.stale }
  } finally {
    for (const t of targets) await t.server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const result = await runMix()
  if (result.stale + result.staleWithoutCache > 0) process.exitCode = 1
}
