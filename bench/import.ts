/**
 * `npm run bench:import`: 100,000 orders from a CSV file through `api import` (the CLI as a
 * process, against the product's server as a process, `--durability full`), against a raw
 * multi-row INSERT of the same rows, and of each row's event, into the same tables of a fresh
 * database of the same schema through bun:sqlite (the same synchronous = FULL, one transaction per
 * chunk of the same size), in the same run. Prints records/s of each and the ratio (target: the
 * import at least 50% of the raw insert of records and events). `-- --rows N` for another size;
 * `-- --fast` for `--durability fast` against synchronous = NORMAL (no sync at each commit).
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newId } from '../shared/ids.ts'
import { adminCommand, BUN, clientToken, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const rowsArg = process.argv.indexOf('--rows')
const ROWS = rowsArg === -1 ? 100_000 : Number(process.argv[rowsArg + 1])
const FAST = process.argv.includes('--fast')
const DURABILITY = FAST ? 'fast' : 'full'
const CHUNK = 500
const TARGET = 0.5
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']
const CURRENCIES = ['EUR', 'USD', 'GBP']

const log = (line: string) => console.log(`bench:import: ${line}`)

/** A fresh, migrated database with an organization, a user to own the orders and a client. */
async function freshDatabase(dir: string, name: string) {
  const db = join(dir, `${name}.db`)
  const org = await adminCommand(db, 'org', 'create', '--name', 'Bench')
  const user = await adminCommand(
    db,
    ...['user', 'create', '--org', org.id!, '--email', 'owner@bench.example', '--name', 'Owner'],
    ...['--role', 'admin', '--password', 'bench-password-1'],
  )
  const client = await adminCommand(db, 'client', 'create', '--name', 'bench', '--org', org.id!)
  return { db, orgId: org.id!, userId: user.id!, client }
}

function writeCsv(file: string, userId: string): void {
  const lines = ['userId,status,amount.value,amount.currency']
  for (let i = 0; i < ROWS; i++)
    lines.push(`${userId},${STATUSES[i % 5]},${100 + ((i * 7919) % 100_000)},${CURRENCIES[i % 3]}`)
  writeFileSync(file, `${lines.join('\n')}\n`)
}

async function throughImport(dir: string, csv: string): Promise<number> {
  const target = await freshDatabase(dir, 'product')
  writeCsv(csv, target.userId)
  const argv = [BUN, 'server/main.ts', 'serve', '--db', target.db, '--durability', DURABILITY]
  argv.push('--rate-limit', '0', '--log-level', 'warn')
  const server = await startServer('product', argv, { cwd: ROOT })
  try {
    const token = await clientToken(server.url, {
      id: target.client.client_id!,
      secret: target.client.client_secret!,
    })
    const started = performance.now()
    const run = Bun.spawn([BUN, 'cli/main.ts', 'import', 'orders', csv, '--chunk-size', String(CHUNK)], {
      cwd: ROOT,
      env: { ...process.env, API_URL: server.url, API_TOKEN: token, XDG_CONFIG_HOME: join(dir, 'config') },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const out = await new Response(run.stdout).text()
    if ((await run.exited) !== 0) throw new Error(`api import failed: ${out}`)
    const seconds = (performance.now() - started) / 1000
    const summary = JSON.parse(out) as { created: number }
    if (summary.created !== ROWS) throw new Error(`api import created ${summary.created} of ${ROWS}`)
    return ROWS / seconds
  } finally {
    await server.stop()
  }
}

/** The same rows (and, with `withEvents`, each row's event) by multi-row INSERTs, a transaction per chunk. */
async function raw(dir: string, csv: string, withEvents: boolean): Promise<number> {
  const target = await freshDatabase(dir, withEvents ? 'raw-events' : 'raw')
  const db = new Database(target.db)
  db.run('PRAGMA journal_mode = WAL')
  db.run(`PRAGMA synchronous = ${FAST ? 'NORMAL' : 'FULL'}`)
  db.run('PRAGMA foreign_keys = ON')
  try {
    const started = performance.now()
    const [, ...lines] = readFileSync(csv, 'utf8').trimEnd().split('\n')
    const one = '(?, ?, ?, ?, ?, ?, ?, ?)'
    const event = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
    for (let start = 0; start < lines.length; start += CHUNK) {
      const part = lines.slice(start, start + CHUNK)
      const now = new Date().toISOString()
      const records: (string | number)[] = []
      const events: (string | number)[] = []
      for (const line of part) {
        // The owner of this database's orders: the file names the import's.
        const [, status, amount, currency] = line.split(',') as [string, string, string, string]
        const userId = target.userId
        const id = newId('ord')
        records.push(id, target.orgId, userId, status, Number(amount), currency, now, now)
        const data = JSON.stringify({
          id,
          userId,
          status,
          amount: Number(amount),
          currency,
          createdAt: now,
          updatedAt: now,
        })
        events.push(
          newId('evt'),
          target.orgId,
          'order.created',
          'orders',
          id,
          data,
          'client',
          target.client.client_id!,
          'bench',
          now,
          now,
        )
      }
      db.transaction(() => {
        // Prepared once per text and kept, as the product's statements are.
        db.query(
          `INSERT INTO orders (id, org_id, user_id, status, amount, currency, created_at, updated_at) VALUES ${part.map(() => one).join(', ')}`,
        ).run(...records)
        if (withEvents)
          db.query(
            `INSERT INTO events (id, org_id, type, resource, resource_id, data, actor_type, actor_id, request_id, created_at, updated_at) VALUES ${part.map(() => event).join(', ')}`,
          ).run(...events)
      })()
    }
    return lines.length / ((performance.now() - started) / 1000)
  } finally {
    db.close()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-import-'))
try {
  const csv = join(dir, 'orders.csv')
  log(`${ROWS.toLocaleString('en-US')} orders, chunks of ${CHUNK}, --durability ${DURABILITY}`)
  const imported = await throughImport(dir, csv)
  const rawEvents = await raw(dir, csv, true)
  const rawRecords = await raw(dir, csv, false)
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
  log(`api import:                        ${fmt(imported)} records/s`)
  log(
    `raw INSERT of records and events:  ${fmt(rawEvents)} records/s (import: ${((imported / rawEvents) * 100).toFixed(0)}%, target ${TARGET * 100}%)`,
  )
  log(
    `raw INSERT of records alone:       ${fmt(rawRecords)} records/s (import: ${((imported / rawRecords) * 100).toFixed(0)}%)`,
  )
  if (imported / rawEvents < TARGET) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
