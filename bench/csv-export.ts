/**
 * `npm run bench:export`: a page of 100 orders as CSV against the same page as JSON
 * (`GET /api/v2/orders?limit=100`, `Accept: text/csv` or none), on the bench database
 * (bench/build-database.ts), with the response cache (the default) and without it (`--no-cache`,
 * where every request reads and serializes the page). Alternating rounds, as `npm run bench`.
 * Writes its block of docs/performance.md ("A page as CSV against JSON"); `npm run bench` runs it
 * too, for its row of the targets (no target: the ratio is reported).
 */
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { benchTenant, DATABASE_FILE, ensureDatabase } from './build-database.ts'
import { writeResults } from './doc.ts'
import { machineMeter } from './machine.ts'
import { measureWorkloads, type Schedule, type Workload } from './measure.ts'
import { BUN, clientToken, type ServerProcess, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const PATH = '/api/v2/orders?limit=100'
const SCHEDULE: Schedule = { tool: 'autocannon', connections: 32, warmupS: 2, rounds: 5, roundS: 2 }
const FORMATS = [
  { name: 'JSON', accept: 'application/json' },
  { name: 'CSV', accept: 'text/csv' },
] as const

const log = (line: string) => console.log(`bench:export: ${line}`)

/** Both representations must hold the same 100 orders, in the same order, before they are timed. */
async function checkSamePage(server: ServerProcess, token: string): Promise<number[]> {
  const get = (accept: string) =>
    fetch(`${server.url}${PATH}`, { headers: { Authorization: `Bearer ${token}`, Accept: accept } })
  const json = await get('application/json')
  const csv = await get('text/csv')
  if (json.status !== 200 || csv.status !== 200)
    throw new Error(`the page answered ${json.status}, ${csv.status}`)
  const jsonText = await json.text()
  const csvText = await csv.text()
  const ids = (JSON.parse(jsonText) as { data: { id: string }[] }).data.map((o) => o.id)
  const rows = parse(csvText, { record_delimiter: '\r\n' }) as string[][]
  if (ids.length !== 100 || JSON.stringify(rows.slice(1).map((r) => r[0])) !== JSON.stringify(ids))
    throw new Error(`${server.name}: the CSV and JSON pages list different orders`)
  return [Buffer.byteLength(jsonText), Buffer.byteLength(csvText)]
}

/** CSV's req/s as a share of JSON's for the same page, with the response cache and without. */
export interface ExportResult {
  cached: number
  uncached: number
}

/** Runs the export benchmark, writes its block of docs/performance.md, and returns the ratios. */
export async function runExport(): Promise<ExportResult> {
  const db = join(ROOT, DATABASE_FILE)
  await ensureDatabase(db, log)
  const tenant = await benchTenant(db, 1)
  const serve = [BUN, 'server/main.ts', 'serve', '--host', '127.0.0.1', '--db', db]
  const env = { API_RATE_LIMIT: '1000000000' }
  const servers: ServerProcess[] = []
  try {
    const cached = await startServer('product', serve, { cwd: ROOT, env })
    servers.push(cached)
    const args = [...serve, '--no-cache', '--base-url', cached.url]
    servers.push(await startServer('product --no-cache', args, { cwd: ROOT, env }))
    const token = await clientToken(
      cached.url,
      { id: tenant.clientId, secret: tenant.clientSecret },
      'read:orders',
    )
    const [jsonBytes, csvBytes] = await checkSamePage(cached, token)
    await checkSamePage(servers[1]!, token)
    const rows: string[] = []
    const ratios: number[] = []
    const meter = machineMeter()
    for (const server of servers) {
      const workloads: Workload[] = FORMATS.map(({ accept }) => ({
        server,
        request: { path: () => PATH, headers: { Authorization: `Bearer ${token}`, Accept: accept } },
      }))
      log(`measuring ${server.name}`)
      const [json, csv] = await measureWorkloads(workloads, SCHEDULE)
      for (const [i, result] of [json!, csv!].entries()) {
        const { rps, p50, p99 } = result.load
        const ratio =
          i === 0
            ? ['', '']
            : [`${Math.round((rps / json!.load.rps) * 100)}%`, `${(p50 / json!.load.p50).toFixed(2)}x`]
        const row = [server.name, FORMATS[i]!.name, Math.round(rps), p50.toFixed(2), p99.toFixed(2), ...ratio]
        rows.push(`| ${row.join(' | ')} |`)
        log(row.join('  '))
      }
      ratios.push(csv!.load.rps / json!.load.rps)
    }
    const text = [
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:export\` (bench/csv-export.ts).`,
      '',
      `Method: \`GET ${PATH}\`, the same 100 orders of the bench database (bench/build-database.ts; both answers checked to list them in the same order first) as JSON (${jsonBytes!.toLocaleString('en-US')} bytes) and as CSV (\`Accept: text/csv\`, ${csvBytes!.toLocaleString('en-US')} bytes), from the product with its response cache (the default) and from a second one with \`--no-cache\`, where every request reads and serializes the page. Load from autocannon in this process, ${SCHEDULE.connections} connections, a ${SCHEDULE.warmupS} s warm-up each, then ${SCHEDULE.rounds} rounds of ${SCHEDULE.roundS} s alternating between the two formats on each server. No target: the ratio is what is reported. ${meter.describe('during the warm-ups and measured rounds')}`,
      '',
      '| server | format | req/s | p50 ms | p99 ms | CSV req/s vs JSON | CSV p50 vs JSON |',
      '|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n')
    writeResults(join(ROOT, 'docs/performance.md'), 'export', text)
    log('wrote docs/performance.md ("A page as CSV against JSON")')
    return { cached: ratios[0]!, uncached: ratios[1]! }
  } finally {
    for (const server of servers) await server.stop()
  }
}

if (import.meta.main) {
  await runExport()
  process.exit(0)
}
