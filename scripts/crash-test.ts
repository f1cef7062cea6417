#!/usr/bin/env bun
/**
 * The crash test (docs/operations.md, "Crash test"): the real server under concurrent idempotent
 * writers, killed with SIGKILL and restarted on the same SQLite file, cycle after cycle. Writers
 * send each write with its own `Idempotency-Key` until it is acknowledged; afterwards the file is
 * checked for acknowledged writes lost, writes stored twice, records without their event, and
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
const command = args.binary
  ? [resolve(args.binary)]
  : [process.execPath, join(import.meta.dir, '..', 'server', 'main.ts')]
// Every loop below stops at this time: a run that cannot finish fails instead of running on. The
// 90 s cover a key left pending by a kill in releases that held it for 60 s.
const deadline = Date.now() + 90_000 + cycles * 10_000

function positive(name: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    console.error(`crash test: --${name} must be a whole number from 1 to 1000`)
    process.exit(2)
  }
  return n
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))
const between = (low: number, high: number) => low + Math.random() * (high - low)
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const dir = mkdtempSync(join(tmpdir(), 'api-crash-'))
const dbPath = join(dir, 'api.db')
// Settings from the caller's environment must not move the server off loopback or change its issuer.
const env = { ...process.env, HOST: undefined, API_BASE_URL: undefined, API_DB: undefined }

/** One admin command (`api-server org create ...`) on the run's file; its one JSON object. */
async function admin(...argv: string[]): Promise<Record<string, unknown>> {
  const run = Bun.spawn([...command, ...argv, '--db', dbPath, '--json'], {
    stdout: 'pipe',
    stderr: 'pipe',
    env,
  })
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  const result: unknown = code === 0 ? JSON.parse(out) : undefined
  if (!isRecord(result)) throw new Error(`api-server ${argv.slice(0, 2).join(' ')} failed: ${err.trim()}`)
  return result
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  if (port === undefined) throw new Error('no free port on 127.0.0.1')
  return port
}

const port = freePort()
const base = `http://127.0.0.1:${port}`
let server: Bun.Subprocess | undefined

const ready = () =>
  fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  )

/** Starts `serve` on the run's file and port, and waits until `/readyz` answers 200. */
async function start(): Promise<void> {
  const options = ['--host', '127.0.0.1', '--port', String(port), '--db', dbPath]
  const quiet = ['--rate-limit', '0', '--log-level', 'silent']
  const started = Bun.spawn([...command, 'serve', ...options, ...quiet], {
    stdout: 'ignore',
    stderr: 'inherit',
    env,
  })
  server = started
  while (Date.now() < deadline) {
    if (started.exitCode !== null)
      throw new Error(`the server exited with ${started.exitCode} while starting`)
    if (await ready()) return
    await sleep(20)
  }
  throw new Error('the server did not become ready before the deadline')
}

/** SIGKILL: no shutdown hook, no checkpoint, no answer to what is in flight. */
async function kill(): Promise<void> {
  server?.kill('SIGKILL')
  await server?.exited
}

const counts = { acknowledged: 0, inFlightAtKills: 0, retries: 0, replayed: 0 }
/** Marker (the post's title) → the id of the post the server acknowledged for it. */
const acknowledged = new Map<string, string>()
let token = ''
let inFlight = 0

/** Sends one write until it is acknowledged (2xx), with the same key and body every time. */
async function send(path: string, key: string, body: Record<string, string>): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    if (Date.now() > deadline) throw new Error(`the write ${key} was not acknowledged before the deadline`)
    if (attempt > 0) {
      counts.retries += 1
      await sleep(between(10, 40))
    }
    let status: number
    let text: string
    let replayed: boolean
    inFlight += 1
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
      status = response.status
      replayed = response.headers.get('idempotent-replayed') === 'true'
      text = await response.text()
    } catch {
      // Only fetch and the body read are in this block: the connection was refused or cut.
      continue
    } finally {
      inFlight -= 1
    }
    // 409: the key is held by a request in flight (or one a kill cut off); 429 and 5xx pass.
    if (status === 409 || status === 429 || status >= 500) continue
    const answer: unknown = status < 300 ? JSON.parse(text) : undefined
    if (!isRecord(answer) || typeof answer.id !== 'string')
      throw new Error(`POST ${path} answered ${status}: ${text.slice(0, 300)}`)
    if (replayed) counts.replayed += 1
    return answer.id
  }
}

let stopping = false
let failure: Error | undefined
async function writer(n: number, runId: string, authorId: string): Promise<void> {
  try {
    for (let i = 0; !stopping; i++) {
      const marker = `${runId}-w${n}-${i}`
      const id = await send('/api/v2/posts', `crash-${marker}`, { authorId, title: marker })
      acknowledged.set(marker, id)
      counts.acknowledged += 1
    }
  } catch (error) {
    failure ??= error instanceof Error ? error : new Error(String(error))
    stopping = true
  }
}

async function requestToken(client: Record<string, unknown>): Promise<string> {
  // RFC 6749 §2.3.1: client_secret_basic, id and secret form-encoded.
  const [id, secret] = [client.client_id, client.client_secret].map((s) => encodeURIComponent(String(s)))
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${id}:${secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  const grant: unknown = await response.json()
  if (!isRecord(grant) || typeof grant.access_token !== 'string')
    throw new Error(`the token request answered ${response.status}`)
  return grant.access_token
}

interface Report {
  cycles: number
  writers: number
  acknowledged: number
  inFlightAtKills: number
  retries: number
  replayed: number
  records: number
  lost: number
  duplicated: number
  withoutEvent: number
  integrity: string
  seconds: number
  database: string
  kept: boolean
}

/** Counts, in the file after the run, what docs/operations.md ("Crash test") says it counts. */
function check(
  orgId: string,
): Pick<Report, 'records' | 'lost' | 'duplicated' | 'withoutEvent' | 'integrity'> {
  const db = new Database(dbPath, { readonly: true })
  try {
    const posts = db.query<{ id: string; title: string }, [string]>(
      'SELECT id, title FROM posts WHERE org_id = ?',
    )
    const events = db.query<{ resource_id: string }, [string]>(
      "SELECT resource_id FROM events WHERE org_id = ? AND type = 'post.created'",
    )
    const integrity = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check')
    const titleOf = new Map<string, string>()
    const perTitle = new Map<string, number>()
    for (const post of posts.all(orgId)) {
      titleOf.set(post.id, post.title)
      perTitle.set(post.title, (perTitle.get(post.title) ?? 0) + 1)
    }
    const created = new Set(events.all(orgId).map((e) => e.resource_id))
    return {
      records: titleOf.size,
      // Lost: the acknowledged id is gone, or names a record that is not this write's.
      lost: [...acknowledged].filter(([marker, id]) => titleOf.get(id) !== marker).length,
      duplicated: [...perTitle.values()].reduce((extra, count) => extra + count - 1, 0),
      withoutEvent: [...titleOf.keys()].filter((id) => !created.has(id)).length,
      integrity: integrity
        .all()
        .map((row) => row.integrity_check)
        .join('; '),
    }
  } finally {
    db.close()
  }
}

async function run(): Promise<Report> {
  const began = performance.now()
  const org = await admin('org', 'create', '--name', 'Crash test')
  const client = await admin('client', 'create', '--name', 'crash test', '--org', String(org.id))
  await start()
  token = await requestToken(client)
  const runId = crypto.randomUUID().slice(0, 8)
  const author = await send('/api/v2/users', `crash-${runId}-author`, {
    name: 'Crash test',
    email: `crash-${runId}@example.com`,
  })

  const running = Array.from({ length: writers }, (_, n) => writer(n, runId, author))
  for (let cycle = 0; cycle < cycles && !stopping; cycle++) {
    await sleep(between(300, 1500))
    counts.inFlightAtKills += inFlight
    await kill()
    await start()
  }
  // No new writes from here; the ones begun go on retrying until acknowledged.
  stopping = true
  await Promise.all(running)
  if (failure) throw failure
  server?.kill('SIGTERM')
  await Promise.race([server?.exited, sleep(10_000)])
  return {
    cycles,
    writers,
    ...counts,
    ...check(String(org.id)),
    seconds: Math.round((performance.now() - began) / 100) / 10,
    database: dbPath,
    kept: args.keep,
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
    ['posts in the file', report.records],
    ['requests in flight at the kills', report.inFlightAtKills],
    ['retries (cut off, refused, 409, 5xx)', report.retries],
    ['answers replayed from a stored key', report.replayed],
    ['acknowledged writes lost', report.lost],
    ['writes stored twice', report.duplicated],
    ['records without their post.created', report.withoutEvent],
    ['PRAGMA integrity_check', report.integrity],
    ['seconds', report.seconds],
  ]
  for (const [label, value] of rows) console.log(`${label.padEnd(38)} ${value}`)
  console.log(`database ${report.database} (${report.kept ? 'kept' : 'removed'})`)
  console.log(passed(report) ? 'crash test passed' : 'crash test FAILED: see the counts above')
}

function passed(report: Report): boolean {
  return (
    report.lost === 0 && report.duplicated === 0 && report.withoutEvent === 0 && report.integrity === 'ok'
  )
}

function cleanUp(): void {
  server?.kill('SIGKILL')
  if (!args.keep) rmSync(dir, { recursive: true, force: true })
}
// Interrupted by hand: take the server and the temporary directory along.
process.once('SIGINT', () => {
  cleanUp()
  process.exit(130)
})

let report: Report | undefined
try {
  report = await run()
  print(report)
} catch (error) {
  console.error(`crash test failed: ${error instanceof Error ? error.message : String(error)}`)
  if (args.keep) console.error(`database kept at ${dbPath}`)
} finally {
  await kill()
  cleanUp()
}
process.exit(report !== undefined && passed(report) ? 0 : 1)
