/**
 * `npm run bench:writes`: creates per second (`POST /api/v2/orders` with a fresh `Idempotency-Key`
 * per request) of the product under `--durability full` (every commit synced) and `--durability
 * fast` (synced at checkpoints), each against a raw Bun.serve + bun:sqlite baseline that inserts
 * the row and its event in one transaction with the same setting, in one run: the four servers
 * take turns, round after round, so machine noise hits all alike. Writes the results into
 * docs/performance.md ("Writes and durability"); `npm run bench` runs it too, for its targets.
 *
 * `-- --postgres`: the same on PostgreSQL (bench/postgres-writes.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeResults } from './doc.ts'
import { postgresWrites } from './postgres-writes.ts'
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
const CONNECTIONS = 16
const WARMUP_S = 1
const ROUNDS = 5
const ROUND_S = 3
/** The share of the raw insert's creates/s the product must reach (under the default, `full`). */
export const WRITE_TARGET = 0.7

const log = (line: string) => console.log(`bench:writes: ${line}`)

interface Target {
  name: string
  server: ServerProcess
  headers: Record<string, string>
  body: string
  /** Whether each request carries its own Idempotency-Key (the product's requests do). */
  keyed: boolean
  creates: number
  seconds: number
  serverCpuS: number
  latencies: number[]
}

async function product(dir: string, durability: 'full' | 'fast'): Promise<Target> {
  const db = join(dir, `product-${durability}.db`)
  const org = await adminCommand(db, 'org', 'create', '--name', 'Bench')
  const client = await adminCommand(db, 'client', 'create', '--name', 'bench', '--org', org.id!)
  const argv = [BUN, 'server/main.ts', 'serve', '--db', db, '--durability', durability]
  const server = await startServer(
    `product ${durability}`,
    [...argv, '--rate-limit', '0', '--log-level', 'warn'],
    {
      cwd: ROOT,
    },
  )
  const access_token = await clientToken(server.url, { id: client.client_id!, secret: client.client_secret! })
  const headers = { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' }
  const user = await fetch(`${server.url}/api/v2/users`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Bench', email: 'bench@example.com' }),
  })
  const { id } = (await user.json()) as { id: string }
  const body = JSON.stringify({ userId: id, amount: { value: 4200, currency: 'EUR' } })
  return { name: `product, ${durability}`, server, headers, body, keyed: true, ...zero() }
}

/**
 * The raw insert into two bare tables, or (`productSchema`) into the product's own tables, with
 * their indexes and foreign keys, in a database the product migrated.
 */
async function baseline(dir: string, durability: 'full' | 'fast', productSchema = false): Promise<Target> {
  const db = join(dir, `baseline-${durability}${productSchema ? '-schema' : ''}.db`)
  const argv = [BUN, 'bench/baseline-writes-server.ts', '--db', db, '--durability', durability]
  if (productSchema) {
    const org = await adminCommand(db, 'org', 'create', '--name', 'Bench')
    const user = await adminCommand(
      db,
      'user',
      'create',
      '--org',
      org.id!,
      '--name',
      'Bench',
      '--email',
      'bench@example.com',
      '--password',
      'bench-password',
    )
    argv.push('--org', org.id!, '--user', user.id!)
  }
  const name = `raw insert${productSchema ? " into the product's tables" : ''}, ${durability}`
  const server = await startServer(name, argv, { cwd: ROOT })
  const headers = { 'Content-Type': 'application/json' }
  const body = JSON.stringify({ userId: 'usr_bench', amount: { value: 4200, currency: 'EUR' } })
  return { name, server, headers, body, keyed: false, ...zero() }
}

const zero = () => ({ creates: 0, seconds: 0, serverCpuS: 0, latencies: [] as number[] })

/** CONNECTIONS clients, each creating orders one after the other for `seconds`. */
async function round(target: Target, seconds: number): Promise<void> {
  const until = performance.now() + seconds * 1000
  const cpu0 = target.server.cpuSeconds()
  const client = async () => {
    while (performance.now() < until) {
      const headers = target.keyed
        ? { ...target.headers, 'Idempotency-Key': crypto.randomUUID() }
        : target.headers
      const sent = performance.now()
      const response = await fetch(`${target.server.url}/api/v2/orders`, {
        method: 'POST',
        headers,
        body: target.body,
      })
      await response.arrayBuffer()
      if (response.status !== 201) throw new Error(`${target.name}: POST answered ${response.status}`)
      target.latencies.push(performance.now() - sent)
      target.creates += 1
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, client))
  target.seconds += (performance.now() - started) / 1000
  target.serverCpuS += target.server.cpuSeconds() - cpu0
}

const p = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0

export interface WritesResult {
  /** Product creates/s over the raw insert's, under `full` (the default) and `fast`. */
  full: number
  fast: number
}

/** Runs the SQLite write benchmark, writes its block of docs/performance.md, and returns the ratios. */
export async function sqliteWrites(): Promise<WritesResult> {
  const dir = mkdtempSync(join(tmpdir(), 'api-bench-writes-'))
  const targets: Target[] = []
  try {
    for (const durability of ['full', 'fast'] as const) {
      targets.push(await product(dir, durability))
      targets.push(await baseline(dir, durability))
      targets.push(await baseline(dir, durability, true))
    }
    for (const target of targets) await round(target, WARMUP_S)
    for (const target of targets) Object.assign(target, zero())
    const machine0 = machineBusySeconds()
    const started = performance.now()
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) await round(targets[(r + i) % targets.length]!, ROUND_S)
      log(`round ${r + 1} of ${ROUNDS}`)
    }
    const busy = (machineBusySeconds() - machine0) / ((performance.now() - started) / 1000)
    const rate = (t: Target) => t.creates / t.seconds
    const [productFull, baselineFull, schemaFull, productFast, baselineFast, schemaFast] = targets as [
      Target,
      Target,
      Target,
      Target,
      Target,
      Target,
    ]
    const result = {
      full: rate(productFull) / rate(baselineFull),
      fast: rate(productFast) / rate(baselineFast),
    }
    const us = (t: Target) => Math.round((t.serverCpuS * 1e6) / t.creates).toLocaleString('en')
    const row = (t: Target, base: Target) =>
      `| ${t.name} | ${Math.round(rate(t)).toLocaleString('en')} | ${p(t.latencies, 0.5).toFixed(1)} | ${p(t.latencies, 0.99).toFixed(1)} | ${us(t)} | ${Math.round((100 * rate(t)) / rate(base))}% |`
    const pct = (a: Target, b: Target) => `${Math.round((100 * rate(a)) / rate(b))}%`
    const met = result.full >= WRITE_TARGET
    const text = [
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:writes\` (Bun ${Bun.version}).`,
      '',
      '| server | creates/s | p50 ms | p99 ms | server CPU per create, µs | vs raw insert |',
      '| --- | --- | --- | --- | --- | --- |',
      row(productFull, baselineFull),
      row(baselineFull, baselineFull),
      row(schemaFull, baselineFull),
      row(productFast, baselineFast),
      row(baselineFast, baselineFast),
      row(schemaFast, baselineFast),
      '',
      `- With \`--durability full\` (the default) the product makes **${Math.round(100 * result.full)}%** of the raw insert's creates per second (target ${Math.round(100 * WRITE_TARGET)}%): **${met ? 'met' : 'missed'}**. With \`fast\`: ${Math.round(100 * result.fast)}%.`,
      `- The same insert into the product's own tables (their indexes and foreign keys) makes ${pct(schemaFull, baselineFull)} of the bare insert's creates/s under \`full\` and ${pct(schemaFast, baselineFast)} under \`fast\`; against it, the product makes ${pct(productFull, schemaFull)} and ${pct(productFast, schemaFast)}.`,
      `- \`full\` keeps ${Math.round((100 * rate(productFull)) / rate(productFast))}% of the product's creates/s under \`fast\`, and ${Math.round((100 * rate(baselineFull)) / rate(baselineFast))}% of the raw insert's.`,
      `- The machine (${cpus().length} cores) was busy ${busy.toFixed(2)} cores on average during the measured rounds, the load generator (this process) included: compare the rows, not the absolute figures.`,
      '',
      `Load: ${CONNECTIONS} concurrent clients (fetch, in the bench process), each creating orders one after the other, \`POST /api/v2/orders\` with a fresh \`Idempotency-Key\` per request to the product; ${WARMUP_S} s warm-up each, then ${ROUNDS} rounds of ${ROUND_S} s alternating between the six servers, each on its own new database.`,
    ].join('\n')
    console.log(text)
    writeResults(DOC, 'writes', text)
    return result
  } finally {
    await Promise.all(targets.map((t) => t.server.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  if (process.argv.includes('--postgres')) await postgresWrites()
  else await sqliteWrites()
  process.exit(0)
}
