/**
 * `npm run bench:writes`: creates per second (POST /api/v1/orders) of the product under
 * `--durability full` (every commit synced) and `--durability fast` (synced at checkpoints), each
 * against a raw Bun.serve + bun:sqlite baseline doing the same transaction with the same setting,
 * in one run: the four servers take turns, round after round, so machine noise hits all alike.
 * Prints a markdown table for docs/performance.md ("Writes and durability").
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresWrites } from './postgres-writes.ts'
import { BUN, type ServerProcess, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const CONNECTIONS = 16
const ROUNDS = 5
const ROUND_S = 3
const dir = mkdtempSync(join(tmpdir(), 'api-bench-writes-'))

async function admin(db: string, ...args: string[]): Promise<Record<string, string>> {
  const run = Bun.spawn([BUN, 'server/main.ts', ...args, '--db', db, '--json'], { cwd: ROOT, stdout: 'pipe' })
  const out = await new Response(run.stdout).text()
  if ((await run.exited) !== 0) throw new Error(`api-server ${args.join(' ')} failed`)
  return JSON.parse(out) as Record<string, string>
}

interface Target {
  name: string
  server: ServerProcess
  headers: Record<string, string>
  userId: string
  creates: number
  seconds: number
}

async function product(durability: 'full' | 'fast'): Promise<Target> {
  const db = join(dir, `product-${durability}.db`)
  const org = await admin(db, 'org', 'create', '--name', 'Bench')
  const client = await admin(db, 'client', 'create', '--name', 'bench', '--org', org.id!)
  const argv = [BUN, 'server/main.ts', 'serve', '--db', db, '--durability', durability]
  const server = await startServer(
    `product ${durability}`,
    [...argv, '--rate-limit', '0', '--log-level', 'warn'],
    {
      cwd: ROOT,
    },
  )
  const grant = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  const { access_token } = (await grant.json()) as { access_token: string }
  const headers = { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' }
  const user = await fetch(`${server.url}/api/v1/users`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Bench', email: 'bench@example.com' }),
  })
  const { id } = (await user.json()) as { id: string }
  return { name: `product, ${durability}`, server, headers, userId: id, creates: 0, seconds: 0 }
}

async function baseline(durability: 'full' | 'fast'): Promise<Target> {
  const argv = [BUN, 'bench/baseline-writes-server.ts', '--db', join(dir, `baseline-${durability}.db`)]
  const server = await startServer(`baseline ${durability}`, [...argv, '--durability', durability], {
    cwd: ROOT,
  })
  const headers = { 'Content-Type': 'application/json' }
  return { name: `baseline, ${durability}`, server, headers, userId: 'usr_bench', creates: 0, seconds: 0 }
}

/** CONNECTIONS clients, each creating orders one after the other for `seconds`. */
async function round(target: Target, seconds: number): Promise<void> {
  const until = performance.now() + seconds * 1000
  const body = JSON.stringify({ userId: target.userId, amount: 4200, currency: 'EUR' })
  const client = async () => {
    let made = 0
    while (performance.now() < until) {
      const response = await fetch(`${target.server.url}/api/v1/orders`, {
        method: 'POST',
        headers: target.headers,
        body,
      })
      await response.arrayBuffer()
      if (response.status !== 201) throw new Error(`${target.name}: POST answered ${response.status}`)
      made += 1
    }
    return made
  }
  const started = performance.now()
  const made = await Promise.all(Array.from({ length: CONNECTIONS }, client))
  target.creates += made.reduce((a, b) => a + b, 0)
  target.seconds += (performance.now() - started) / 1000
}

if (process.argv.includes('--postgres')) {
  await postgresWrites()
  process.exit(0)
}

const targets = [await product('full'), await baseline('full'), await product('fast'), await baseline('fast')]
try {
  for (const target of targets) await round(target, 1)
  for (const target of targets) Object.assign(target, { creates: 0, seconds: 0 })
  for (let r = 0; r < ROUNDS; r++) for (const target of targets) await round(target, ROUND_S)
  const rate = (t: Target) => t.creates / t.seconds
  const [productFull, baselineFull, productFast, baselineFast] = targets.map(rate) as [
    number,
    number,
    number,
    number,
  ]
  const row = (setting: string, p: number, b: number) =>
    `| ${setting} | ${Math.round(p).toLocaleString('en')} | ${Math.round(b).toLocaleString('en')} | ${Math.round((100 * p) / b)}% |`
  console.log(
    `${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_S} s each, ${new Date().toISOString().slice(0, 10)}\n`,
  )
  console.log('| durability | product creates/s | baseline creates/s | product / baseline |')
  console.log('|---|---|---|---|')
  console.log(row('`full` (default)', productFull, baselineFull))
  console.log(row('`fast`', productFast, baselineFast))
  console.log(
    `\nfull / fast: product ${Math.round((100 * productFull) / productFast)}%, baseline ${Math.round((100 * baselineFull) / baselineFast)}%`,
  )
} finally {
  await Promise.all(targets.map((t) => t.server.stop()))
  rmSync(dir, { recursive: true, force: true })
}
