/**
 * Where the product's time goes on the two benchmarked requests, without the network: runs each
 * through the app in process under Bun's CPU profiler and prints the biggest shares.
 *
 * Run: node_modules/.bin/bun bench/profile.ts (reuses the benchmark's database)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../server/app.ts'
import { createLogger } from '../server/ops/logger.ts'
import { openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import { benchTenant, DATABASE_FILE, ensureDatabase } from './build-database.ts'
import { summarizeProfile } from './cpu-profile.ts'
import { BUN } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
// Enough that start-up (module loading, also sampled) is a small part of each profile.
const REQUESTS = { list: 60_000, get: 300_000 } as const
type Key = keyof typeof REQUESTS
const SHOWN = 14

/** The child: one endpoint, many times, through `app.fetch`. */
async function profileChild(key: Key): Promise<void> {
  const path = join(ROOT, DATABASE_FILE)
  const tenant = await benchTenant(path, 1)
  const app = await createApp({
    store: sqliteStore(openDatabase(path)),
    baseUrl: 'http://127.0.0.1',
    // As `api-server serve` runs in the benchmark: access lines at info (built, here not written),
    // and a limiter that counts every request but refuses none.
    logger: createLogger('info', () => {}),
    rateLimit: 1_000_000_000,
  })
  const tokenResponse = await app.fetch(
    new Request('http://127.0.0.1/oauth/token', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${tenant.clientId}:${tenant.clientSecret}`)}`,
      },
      body: 'grant_type=client_credentials',
    }),
  )
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string }
  const url =
    key === 'list'
      ? 'http://127.0.0.1/api/v1/orders?status=paid&limit=20'
      : `http://127.0.0.1/api/v1/orders/${tenant.orderIds[0]}`
  const once = async () => {
    const response = await app.fetch(new Request(url, { headers: { Authorization: `Bearer ${token}` } }))
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
    await response.text()
  }
  for (let i = 0; i < REQUESTS[key] / 10; i++) await once()
  const started = performance.now()
  for (let i = 0; i < REQUESTS[key]; i++) await once()
  const us = ((performance.now() - started) * 1000) / REQUESTS[key]
  console.log(`${key}: ${us.toFixed(1)} µs per request in process (no socket)`)
}

async function profileEndpoint(key: Key): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'))
  try {
    const child = Bun.spawnSync([BUN, '--cpu-prof', `--cpu-prof-dir=${dir}`, 'bench/profile.ts', key], {
      cwd: ROOT,
      stdout: 'inherit',
      stderr: 'inherit',
    })
    if (child.exitCode !== 0) throw new Error(`profiling ${key} failed`)
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) throw new Error('bun wrote no .cpuprofile')
    const { self, inclusive } = summarizeProfile(readFileSync(join(dir, file), 'utf8'), ROOT)
    const show = (title: string, shares: { name: string; share: number }[]) => {
      console.log(`  ${title}`)
      // The harness's own loop is in every sample; it says nothing about the product.
      const product = shares.filter((s) => !s.name.includes(' bench/'))
      for (const s of product.slice(0, SHOWN))
        console.log(`  ${(s.share * 100).toFixed(1).padStart(5)}%  ${s.name}`)
    }
    await show('inclusive (with callees)', inclusive)
    await show('self', self)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const key = process.argv[2]
if (key === 'list' || key === 'get') await profileChild(key)
else {
  await ensureDatabase(join(ROOT, DATABASE_FILE), (line) => console.log(`profile: ${line}`))
  for (const k of ['list', 'get'] as const) await profileEndpoint(k)
}
