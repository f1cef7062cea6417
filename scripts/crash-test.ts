#!/usr/bin/env bun
/**
 * The crash test (docs/operations.md, "Crash test"): the real server under concurrent idempotent
 * writers, killed with SIGKILL and restarted on the same SQLite file, cycle after cycle. Writers
 * retry each write with its own `Idempotency-Key` until it is acknowledged; afterwards the file is
 * checked for acknowledged writes lost, writes made twice, writes without their event, and
 * `PRAGMA integrity_check`. Exits 0 only when all four are clean.
 *
 *   npm run crash-test -- [--cycles 20] [--writers 12] [--binary dist/api-server] [--json] [--keep]
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({
  options: {
    cycles: { type: 'string', default: '20' },
    writers: { type: 'string', default: '12' },
    binary: { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const cycles = positive('cycles', args.cycles)
const writers = positive('writers', args.writers)
const server = args.binary ? [resolve(args.binary)] : [process.execPath, resolve('server/main.ts')]
// Every loop below is bounded by this: a run that hangs fails instead of running on.
const deadline = Date.now() + 60_000 + cycles * 15_000

function positive(name: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive whole number`)
    process.exit(2)
  }
  return n
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))
const between = (low: number, high: number) => low + Math.random() * (high - low)

const dir = mkdtempSync(join(tmpdir(), 'api-crash-'))
const dbPath = join(dir, 'api.db')

async function admin(...argv: string[]): Promise<Record<string, string>> {
  const run = Bun.spawn([...server, ...argv, '--db', dbPath, '--json'], { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  if (code !== 0) throw new Error(`api-server ${argv[0]} ${argv[1]} failed: ${err.trim()}`)
  return JSON.parse(out) as Record<string, string>
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

const port = freePort()
const base = `http://127.0.0.1:${port}`
let process_: Bun.Subprocess | undefined

async function start(): Promise<void> {
  process_ = Bun.spawn(
    [
      ...server,
      'serve',
      '--db',
      dbPath,
      '--port',
      String(port),
      '--rate-limit',
      '0',
      '--log-level',
      'silent',
    ],
    { stdout: 'ignore', stderr: 'inherit' },
  )
  while (Date.now() < deadline) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) return
    await sleep(20)
  }
  throw new Error('the server did not become ready')
}

async function kill(): Promise<void> {
  process_?.kill('SIGKILL')
  await process_?.exited
}

const stats = { acknowledged: 0, interrupted: 0, retries: 0 }
/** Marker (the post's title) → the id the server acknowledged. */
const acknowledged = new Map<string, string>()
let token = ''

/** Sends one write until it is acknowledged (2xx), retrying the same key and body on anything else. */
async function writeOnce(path: string, key: string, body: unknown): Promise<{ id: string }> {
  for (;;) {
    if (Date.now() > deadline) throw new Error('deadline passed with a write still unacknowledged')
    try {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
        },
        body: JSON.stringify(body),
      })
      if (response.ok) return (await response.json()) as { id: string }
      // 4xx other than 409/429 means the request itself is wrong: no retry will fix it.
      if (response.status < 500 && response.status !== 409 && response.status !== 429)
        throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
      stats.retries += 1
    } catch (error) {
      if (!(error instanceof TypeError) && !(error as { code?: string }).code) throw error
      // The connection failed or broke mid-request: the server is down or was killed.
      stats.interrupted += 1
    }
    await sleep(between(10, 40))
  }
}

let stopping = false
async function writer(n: number, runId: string, authorId: string): Promise<void> {
  for (let i = 0; !stopping; i++) {
    const marker = `${runId}-w${n}-${i}`
    const { id } = await writeOnce('/api/v2/posts', `crash-${marker}`, { authorId, title: marker })
    acknowledged.set(marker, id)
    stats.acknowledged += 1
  }
}

interface Report {
  cycles: number
  writers: number
  acknowledged: number
  interrupted: number
  retries: number
  lost: number
  duplicated: number
  withoutEvent: number
  integrity: string
  seconds: number
  database: string
}

function check(orgId: string): Pick<Report, 'lost' | 'duplicated' | 'withoutEvent' | 'integrity'> {
  const db = new Database(dbPath, { readonly: true })
  try {
    const posts = db.query('SELECT id, title FROM posts WHERE org_id = ?').all(orgId) as {
      id: string
      title: string
    }[]
    const ids = new Set(posts.map((p) => p.id))
    const perTitle = new Map<string, number>()
    for (const post of posts) perTitle.set(post.title, (perTitle.get(post.title) ?? 0) + 1)
    const created = new Set(
      (
        db.query("SELECT resource_id FROM events WHERE org_id = ? AND type = 'post.created'").all(orgId) as {
          resource_id: string
        }[]
      ).map((e) => e.resource_id),
    )
    return {
      lost: [...acknowledged.values()].filter((id) => !ids.has(id)).length,
      duplicated: [...perTitle.values()].reduce((extra, count) => extra + count - 1, 0),
      withoutEvent: posts.filter((p) => !created.has(p.id)).length,
      integrity: (db.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check,
    }
  } finally {
    db.close()
  }
}

async function main(): Promise<Report> {
  const started = performance.now()
  const org = await admin('org', 'create', '--name', 'Crash test')
  const client = await admin('client', 'create', '--name', 'crash test', '--org', org.id!)
  await start()
  const grant = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  if (!grant.ok) throw new Error(`the token request failed: ${grant.status}`)
  token = ((await grant.json()) as { access_token: string }).access_token
  const runId = crypto.randomUUID().slice(0, 8)
  const author = await writeOnce('/api/v2/users', `crash-${runId}-author`, {
    name: 'Crash test',
    email: `crash-${runId}@example.com`,
  })

  const running = Array.from({ length: writers }, (_, n) => writer(n, runId, author.id))
  for (let cycle = 0; cycle < cycles; cycle++) {
    await sleep(between(300, 1500))
    await kill()
    await start()
  }
  stopping = true
  await Promise.all(running)
  process_?.kill('SIGTERM')
  await process_?.exited
  return {
    cycles,
    writers,
    ...stats,
    ...check(org.id!),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    database: dbPath,
  }
}

function print(report: Report): void {
  if (args.json) {
    console.log(JSON.stringify(report))
    return
  }
  const rows: [string, string | number][] = [
    ['kill -9 cycles', report.cycles],
    ['concurrent writers', report.writers],
    ['writes acknowledged', report.acknowledged],
    ['requests cut off by a kill (retried)', report.interrupted],
    ['other retries (409, 429, 5xx)', report.retries],
    ['acknowledged writes lost', report.lost],
    ['writes made twice', report.duplicated],
    ['records without their event', report.withoutEvent],
    ['PRAGMA integrity_check', report.integrity],
    ['seconds', report.seconds],
  ]
  for (const [label, value] of rows) console.log(`${label.padEnd(38)} ${value}`)
  if (args.keep) console.log(`database kept at ${report.database}`)
}

let report: Report | undefined
try {
  report = await main()
  print(report)
} catch (error) {
  console.error(`crash test failed: ${(error as Error).message}`)
} finally {
  await kill()
  if (!args.keep) rmSync(dir, { recursive: true, force: true })
}
const clean =
  report !== undefined &&
  report.lost === 0 &&
  report.duplicated === 0 &&
  report.withoutEvent === 0 &&
  report.integrity === 'ok'
process.exit(clean ? 0 : 1)
