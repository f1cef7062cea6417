/**
 * `npm run bench:writes -- --postgres`: creates per second (`POST /api/v2/orders` with an
 * `Idempotency-Key`) of the product on PostgreSQL, one replica and two (separate processes on one
 * database, the load split between them), against raw `Bun.serve` + `Bun.sql` baselines running
 * the product's statements in one transaction (bench/baseline-pg-writes-server.ts): as the product
 * does, without the event-order lock, and without the lock and the NOTIFY. All in one run: the
 * targets take turns, round after round, so the shared machine's noise hits all alike.
 *
 * Twice: with PostgreSQL's defaults (`synchronous_commit = on`, `fsync = on`: a commit waits for
 * its flush to disk) and with `synchronous_commit = off` for the database (commits are flushed in
 * the background; a crash of the database server loses the last fraction of a second).
 * Prints markdown for docs/performance.md ("PostgreSQL: writes, replicas and connections").
 */
import { join } from 'node:path'
import { startTestPostgres, type TestPostgres } from '../test/support/postgres.ts'
import {
  adminCommand,
  BUN,
  clientToken,
  machineBusySeconds,
  type ServerProcess,
  startServer,
  treeCpuSeconds,
} from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const CONNECTIONS = 16
const ROUNDS = 4
const ROUND_S = 2
const WARMUP_S = 1
// bench/baseline-pg-writes-server.ts --variant, in the order of the targets below.
const VARIANTS = ['full', 'lock-last', 'no-lock', 'no-lock-no-notify']
const log = (line: string) => console.log(`bench: ${line}`)

interface Target {
  name: string
  servers: ServerProcess[]
  headers: Record<string, string>
  creates: number
  seconds: number
  latencies: number[]
  serverCpuS: number
  databaseCpuS: number
  machineCpuS: number
}

const target = (name: string, servers: ServerProcess[], headers: Record<string, string>): Target => ({
  name,
  servers,
  headers,
  creates: 0,
  seconds: 0,
  latencies: [],
  serverCpuS: 0,
  databaseCpuS: 0,
  machineCpuS: 0,
})

/** CONNECTIONS clients spread over the target's servers, each creating orders one after the other. */
async function round(t: Target, seconds: number, body: string, database: () => number): Promise<void> {
  const until = performance.now() + seconds * 1000
  const cpu = () => t.servers.reduce((sum, s) => sum + s.cpuSeconds(), 0)
  const [server0, database0, machine0] = [cpu(), database(), machineBusySeconds()]
  const latencies: number[] = []
  const client = async (n: number) => {
    const url = `${t.servers[n % t.servers.length]!.url}/api/v2/orders`
    while (performance.now() < until) {
      const headers = { ...t.headers, 'Idempotency-Key': crypto.randomUUID() }
      const sent = performance.now()
      const response = await fetch(url, { method: 'POST', headers, body })
      await response.arrayBuffer()
      if (response.status !== 201) throw new Error(`${t.name}: POST answered ${response.status}`)
      latencies.push(performance.now() - sent)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => client(n)))
  t.seconds += (performance.now() - started) / 1000
  t.creates += latencies.length
  t.latencies.push(...latencies)
  t.serverCpuS += cpu() - server0
  t.databaseCpuS += database() - database0
  t.machineCpuS += machineBusySeconds() - machine0
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0

interface Phase {
  setting: string
  targets: Target[]
}

async function phase(pg: TestPostgres, synchronousCommit: 'on' | 'off'): Promise<Phase> {
  const admin0 = new Bun.SQL(pg.url, { max: 1 })
  const name = `bench_writes_${synchronousCommit}`
  await admin0.unsafe(`CREATE DATABASE ${name}`)
  await admin0.unsafe(`ALTER DATABASE ${name} SET synchronous_commit = ${synchronousCommit}`)
  await admin0.close()
  const db = pg.url.replace(/\/postgres$/, `/${name}`)
  const org = await adminCommand(db, 'org', 'create', '--name', 'Bench')
  const client = await adminCommand(db, 'client', 'create', '--name', 'bench', '--org', org.id!)
  // One issuer for both replicas, as behind a proxy: a token from one is good on the other.
  const serve = [BUN, 'server/main.ts', 'serve', '--db', db, '--rate-limit', '0', '--log-level', 'warn']
  serve.push('--base-url', 'http://127.0.0.1:8080')
  const started: ServerProcess[] = []
  try {
    const replicaA = await startServer('product replica 1', serve, { cwd: ROOT })
    started.push(replicaA)
    const replicaB = await startServer('product replica 2', serve, { cwd: ROOT })
    started.push(replicaB)
    const access_token = await clientToken(replicaA.url, {
      id: client.client_id!,
      secret: client.client_secret!,
    })
    const headers = { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' }
    const user = await fetch(`${replicaA.url}/api/v2/users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com' }),
    })
    const { id: userId } = (await user.json()) as { id: string }
    const baselines: ServerProcess[] = []
    for (const variant of VARIANTS) {
      const argv = [BUN, 'bench/baseline-pg-writes-server.ts', '--db', db, '--org', org.id!]
      const server = await startServer(
        `baseline ${variant}`,
        [...argv, '--client', client.client_id!, '--variant', variant],
        {
          cwd: ROOT,
        },
      )
      started.push(server)
      baselines.push(server)
    }
    const json = { 'Content-Type': 'application/json' }
    const targets = [
      target('product, 1 replica', [replicaA], headers),
      target('product, 2 replicas', [replicaA, replicaB], headers),
      target('baseline (as the product: event-order lock, NOTIFY)', [baselines[0]!], json),
      target('baseline, the lock taken last', [baselines[1]!], json),
      target('baseline without the event-order lock', [baselines[2]!], json),
      target('baseline without the lock and the NOTIFY', [baselines[3]!], json),
    ]
    const body = JSON.stringify({ userId, amount: { value: 4200, currency: 'EUR' } })
    const database = () => treeCpuSeconds(pg.pid())
    for (const t of targets) await round(t, WARMUP_S, body, database)
    for (const t of targets) Object.assign(t, target(t.name, t.servers, t.headers))
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(r + i) % targets.length]!
        await round(t, ROUND_S, body, database)
        log(
          `synchronous_commit=${synchronousCommit} round ${r + 1}: ${t.name} ${(t.creates / t.seconds).toFixed(0)}/s so far`,
        )
      }
    }
    return { setting: synchronousCommit, targets }
  } finally {
    for (const server of started) await server.stop()
  }
}

function table(p: Phase): string {
  const base = p.targets[2]!
  const rate = (t: Target) => t.creates / t.seconds
  const us = (seconds: number, t: Target) => Math.round((seconds * 1e6) / t.creates).toLocaleString('en')
  const lines = [
    '| server | creates/s | p99 ms | server CPU per create, µs | PostgreSQL CPU per create, µs | machine CPU, cores | vs baseline |',
    '|---|---|---|---|---|---|---|',
    ...p.targets.map(
      (t) =>
        `| ${t.name} | ${Math.round(rate(t)).toLocaleString('en')} | ${p99(t.latencies).toFixed(1)} | ${us(t.serverCpuS, t)} | ${us(t.databaseCpuS, t)} | ${(t.machineCpuS / t.seconds).toFixed(2)} | ${Math.round((100 * rate(t)) / rate(base))}% |`,
    ),
  ]
  return lines.join('\n')
}

export async function postgresWrites(): Promise<void> {
  const pg = await startTestPostgres({ production: true })
  try {
    const phases = [await phase(pg, 'on'), await phase(pg, 'off')]
    console.log(
      `\n${CONNECTIONS} connections, per server ${WARMUP_S} s warm-up then ${ROUNDS} alternating rounds of ${ROUND_S} s, ${new Date().toISOString().slice(0, 10)}, Bun ${Bun.version}\n`,
    )
    for (const p of phases) {
      console.log(
        `synchronous_commit = ${p.setting}${p.setting === 'on' ? ' (the default; fsync on)' : ''}\n`,
      )
      console.log(`${table(p)}\n`)
      const [, two, full, lockLast, noLock, bare] = p.targets.map((t) => t.creates / t.seconds) as number[]
      const one = p.targets[0]!.creates / p.targets[0]!.seconds
      console.log(
        `2 replicas / 1: ${Math.round((100 * two!) / one)}%; the event-order lock costs the baseline ${Math.round(100 - (100 * full!) / noLock!)}% of its creates/s, the lock and NOTIFY together ${Math.round(100 - (100 * full!) / bare!)}%; taken last, the lock leaves ${Math.round((100 * lockLast!) / full!)}% of the creates/s as the product takes it\n`,
      )
    }
  } finally {
    await pg.stop()
  }
}
