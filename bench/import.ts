/**
 * `npm run bench:import`: 100,000 orders from a CSV file through `api import` (the CLI as a
 * process, against the product's server as a process), against a raw multi-row INSERT of the same
 * rows, and of each row's event, into the same tables of a fresh database of the same schema
 * through bun:sqlite (one transaction per chunk of the same size), in the same run: first under
 * `--durability full` against synchronous = FULL, then `fast` against NORMAL. Target: under
 * `full` (the default), the import at least 50% of the raw insert of records and events. Writes its
 * block of docs/performance.md ("`api import` of 100,000 rows"); `npm run bench` runs it too.
 * `-- --rows N` for another size (printed, not written into the docs).
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newId } from '../shared/ids.ts'
import { writeResults } from './doc.ts'
import { machineMeter } from './machine.ts'
import { adminCommand, BUN, clientToken, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const DOC = join(ROOT, 'docs/performance.md')
const ROWS = 100_000
const CHUNK = 500
/** `api import` at least this share of the raw insert of records and events, under `full`. */
export const IMPORT_TARGET = 0.5
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']
const CURRENCIES = ['EUR', 'USD', 'GBP']
const DURABILITIES = ['full', 'fast'] as const
type Durability = (typeof DURABILITIES)[number]

const log = (line: string) => console.log(`bench:import: ${line}`)

/** Records/s of each way in, under one durability. */
interface Rates {
  imported: number
  rawEvents: number
  rawRecords: number
}

/** The rates by durability; `ratio` is the target's: `api import` over the raw insert of records and events under `full`. */
export interface ImportResult extends Record<Durability, Rates> {
  ratio: number
}

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

function writeCsv(file: string, userId: string, rows: number): void {
  const lines = ['userId,status,amount.value,amount.currency']
  for (let i = 0; i < rows; i++)
    lines.push(`${userId},${STATUSES[i % 5]},${100 + ((i * 7919) % 100_000)},${CURRENCIES[i % 3]}`)
  writeFileSync(file, `${lines.join('\n')}\n`)
}

async function throughImport(
  dir: string,
  csv: string,
  rows: number,
  durability: Durability,
): Promise<number> {
  const target = await freshDatabase(dir, `product-${durability}`)
  writeCsv(csv, target.userId, rows)
  const argv = [BUN, 'server/main.ts', 'serve', '--db', target.db, '--durability', durability]
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
    if (summary.created !== rows) throw new Error(`api import created ${summary.created} of ${rows}`)
    return rows / seconds
  } finally {
    await server.stop()
  }
}

/** The same rows (and, with `withEvents`, each row's event) by multi-row INSERTs, a transaction per chunk. */
async function raw(dir: string, csv: string, durability: Durability, withEvents: boolean): Promise<number> {
  const target = await freshDatabase(dir, `raw-${withEvents ? 'events' : 'records'}-${durability}`)
  const db = new Database(target.db)
  db.run('PRAGMA journal_mode = WAL')
  db.run(`PRAGMA synchronous = ${durability === 'fast' ? 'NORMAL' : 'FULL'}`)
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
        const actor = ['client', target.client.client_id!, 'bench']
        events.push(newId('evt'), target.orgId, 'order.created', 'orders', id, data, ...actor, now, now)
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

function markdown(result: ImportResult, rows: number, machine: string): string {
  const n = (value: number) => Math.round(value).toLocaleString('en-US')
  const pct = (a: number, b: number) => `${Math.round((a / b) * 100)}%`
  const row = (d: Durability) => {
    const r = result[d]
    return `| \`${d}\` | ${n(r.imported)} records/s | ${n(r.rawEvents)} records/s | ${d === 'full' ? `**${pct(r.imported, r.rawEvents)}**` : pct(r.imported, r.rawEvents)} | ${n(r.rawRecords)} records/s | ${pct(r.imported, r.rawRecords)} |`
  }
  const met = result.ratio >= IMPORT_TARGET
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:import\` (bench/import.ts).`,
    '',
    `Method: ${n(rows)} orders in a CSV file (\`userId,status,amount.value,amount.currency\`) through \`bun cli/main.ts import orders FILE --chunk-size ${CHUNK}\`, the CLI a process talking to the product's server, a process on a fresh migrated SQLite database; then, in the same run, the same rows by raw multi-row \`INSERT\`s through bun:sqlite into the same tables of another fresh database of the same schema, one transaction per ${CHUNK} rows with the same \`synchronous\` setting: once the orders with each one's \`order.created\` event (what the import writes: the service appends an event in the transaction of every change), once the orders alone. All three under \`--durability full\` (the default) against \`synchronous = FULL\`, then all three under \`fast\` against \`NORMAL\`, one after the other. A rate is the rows over the wall-clock time of the whole load: from starting the CLI to its exit (reading the file, every request, the summary), from the raw loop's reading the file to its last commit. ${machine}`,
    '',
    '| durability | `api import` | raw INSERT, orders and events | import / that | raw INSERT, orders alone | import / that |',
    '|---|---|---|---|---|---|',
    row('full'),
    row('fast'),
    '',
    `Target (under \`full\`, the default, the import at least ${IMPORT_TARGET * 100}% of the raw insert of records and events): **${met ? 'met' : 'missed'}**.`,
  ].join('\n')
}

/**
 * Runs the import benchmark (`rows` orders, 100,000 unless a trial size), writes its block of
 * docs/performance.md when at the documented size, and returns the rates and the target's ratio.
 */
export async function runImport(rows = ROWS): Promise<ImportResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'))
  try {
    const csv = join(dir, 'orders.csv')
    const rates = {} as Record<Durability, Rates>
    const meter = machineMeter()
    for (const durability of DURABILITIES) {
      log(`${rows.toLocaleString('en-US')} orders, chunks of ${CHUNK}, --durability ${durability}`)
      const imported = await throughImport(dir, csv, rows, durability)
      const rawEvents = await raw(dir, csv, durability, true)
      const rawRecords = await raw(dir, csv, durability, false)
      rates[durability] = { imported, rawEvents, rawRecords }
      log(
        `${durability}: api import ${Math.round(imported)}, raw orders and events ${Math.round(rawEvents)}, raw orders ${Math.round(rawRecords)} records/s`,
      )
    }
    const result = { ...rates, ratio: rates.full.imported / rates.full.rawEvents }
    const text = markdown(result, rows, meter.describe('during the run'))
    console.log(text)
    if (rows === ROWS) {
      writeResults(DOC, 'import', text)
      log('wrote docs/performance.md ("`api import` of 100,000 rows")')
    }
    return result
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  // Both durabilities are measured in every run: the former `--fast` is refused, not ignored.
  const rows = args.length === 0 ? ROWS : Number(args[1])
  if (
    (args.length > 0 && (args[0] !== '--rows' || args.length !== 2)) ||
    !Number.isInteger(rows) ||
    rows < 1
  ) {
    console.error('usage: npm run bench:import [-- --rows N], N a positive whole number')
    process.exit(2)
  }
  const result = await runImport(rows)
  process.exit(result.ratio >= IMPORT_TARGET ? 0 : 1)
}
