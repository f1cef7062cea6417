/**
 * Where the product's time goes on the benchmarked requests, without the network: runs each
 * through the app in process under Bun's CPU profiler and prints the biggest shares. `graphql` is
 * the list's GraphQL twin (bench/graphql.ts), `list-nocache` and `graphql-nocache` the two without
 * the response cache. `create` is
 * `POST /api/v2/orders` with a fresh Idempotency-Key each time, on a copy of the benchmark database
 * with `--durability fast` (so that the sync, the disk's share, does not hide the CPU's).
 *
 * Run: node_modules/.bin/bun bench/profile.ts [list|get|create|graphql|...] (reuses the benchmark's database)
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../server/app.ts'
import { createLogger } from '../server/ops/logger.ts'
import { openDatabase } from '../server/store/sqlite/db.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { benchTenant, DATABASE_FILE, ensureDatabase } from './build-database.ts'
import { summarizeProfile } from './cpu-profile.ts'
import { graphqlListBody } from './graphql.ts'
import { BUN } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
// Enough that start-up (module loading, also sampled) is a small part of each profile.
const REQUESTS = {
  list: 60_000,
  get: 300_000,
  create: 20_000,
  graphql: 30_000,
  'list-nocache': 30_000,
  'graphql-nocache': 30_000,
} as const
const KEYS = Object.keys(REQUESTS) as Key[]
type Key = keyof typeof REQUESTS
const SHOWN = 14

/** The child: one endpoint, many times, through `app.fetch`. */
async function profileChild(key: Key): Promise<void> {
  let path = join(ROOT, DATABASE_FILE)
  const scratch = mkdtempSync(join(tmpdir(), 'bench-profile-db-'))
  if (key === 'create') {
    copyFileSync(path, join(scratch, 'orders.db'))
    path = join(scratch, 'orders.db')
  }
  const scope = key === 'create' ? ['read:orders', 'write:orders'] : ['read:orders']
  const tenant = await benchTenant(path, 1, scope)
  const schema = exampleSchema()
  const app = await createApp({
    schema,
    store: sqliteStore(openDatabase(path, key === 'create' ? 'fast' : 'full'), schema),
    baseUrl: 'http://127.0.0.1',
    // As `api-server serve` runs in the benchmark: access lines at info (built, here not written),
    // and a limiter that counts every request but refuses none.
    logger: createLogger('info', () => {}),
    rateLimit: 1_000_000_000,
    ...(key.endsWith('-nocache') ? { cacheMb: 0 } : {}),
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
  const { userId } = (await (
    await app.fetch(
      new Request(`http://127.0.0.1/api/v1/orders/${tenant.orderIds[0]}`, {
        headers: { Authorization: `Bearer ${token}` },
      }),
    )
  ).json()) as { userId: string }
  const create = JSON.stringify({ userId, amount: { value: 4200, currency: 'EUR' } })
  const request = (): Request => {
    const headers = { Authorization: `Bearer ${token}` }
    if (key.startsWith('graphql'))
      return new Request('http://127.0.0.1/graphql', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: graphqlListBody,
      })
    if (key.startsWith('list'))
      return new Request('http://127.0.0.1/api/v1/orders?status=paid&limit=20', { headers })
    if (key === 'get') return new Request(`http://127.0.0.1/api/v1/orders/${tenant.orderIds[0]}`, { headers })
    return new Request('http://127.0.0.1/api/v2/orders', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: create,
    })
  }
  const once = async () => {
    const response = await app.fetch(request())
    if (response.status !== (key === 'create' ? 201 : 200))
      throw new Error(`${key} answered ${response.status}: ${await response.text()}`)
    await response.text()
  }
  for (let i = 0; i < REQUESTS[key] / 10; i++) await once()
  const started = performance.now()
  for (let i = 0; i < REQUESTS[key]; i++) await once()
  const us = ((performance.now() - started) * 1000) / REQUESTS[key]
  console.log(`${key}: ${us.toFixed(1)} µs per request in process (no socket)`)
  rmSync(scratch, { recursive: true, force: true })
}

async function profileEndpoint(key: Key): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'))
  try {
    const child = Bun.spawnSync(
      [BUN, '--cpu-prof', `--cpu-prof-dir=${dir}`, 'bench/profile.ts', key, '--child'],
      {
        cwd: ROOT,
        stdout: 'inherit',
        stderr: 'inherit',
      },
    )
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

const [key, child] = process.argv.slice(2)
if (key !== undefined && !KEYS.includes(key as Key))
  throw new Error(`usage: bun bench/profile.ts [${KEYS.join('|')}]`)
if (child === '--child') await profileChild(key as Key)
else {
  await ensureDatabase(join(ROOT, DATABASE_FILE), (line) => console.log(`profile: ${line}`))
  for (const k of key ? [key as Key] : (['list', 'get', 'create'] as const)) await profileEndpoint(k)
}
