/**
 * `npm run bench`: every performance target in one run. First the product's order list and GET by
 * id against a raw Bun.serve + bun:sqlite baseline over the same database; then the writes
 * (bench/writes.ts), the 90/10 mix (bench/mix.ts), the list by collection size (bench/size.ts) and
 * the bulk benchmarks (bench/bulk.ts: aggregates over 1,000,000 orders, `api import` of 100,000
 * rows, a page as CSV against JSON); then the table of targets. Writes docs/performance.md.
 *
 * `-- --wrk` uses Debian's wrk instead of autocannon for the reads (`apt-get install -y wrk`).
 * `-- --postgres` runs the reads on PostgreSQL against a raw Bun.sql baseline (the writes, the mix,
 * the sizes and the bulk benchmarks are SQLite's, and not run). `-- --reads` stops after the reads
 * (their rows of the targets still written).
 */
import { readFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'
import { join } from 'node:path'
import { benchTenant, DATABASE_FILE, ensureDatabase, ORDERS_PER_ORG, ORGS } from './build-database.ts'
import { BULK_WORKLOADS } from './bulk.ts'
import { writeResults } from './doc.ts'
import { benchGraphQL, GRAPHQL_TARGET } from './graphql.ts'
import type { LoadTool } from './load.ts'
import { measureEndpoint, type Schedule } from './measure.ts'
import { postgresBench } from './postgres.ts'
import { BUN, clientToken, replicas, type ServerProcess, startServer } from './processes.ts'
import {
  type Endpoint,
  type Measurement,
  markdownResults,
  type RunInfo,
  textTable,
  verdicts,
} from './report.ts'
import { otherRows, sqliteRows } from './sqlite-rows.ts'
import { readRows, type TargetRow, targetsMarkdown, targetsText } from './targets.ts'
import { hasWrk } from './wrk.ts'

const ROOT = join(import.meta.dir, '..')
// Two cores in all: one for the server under load, one for the load generator; connections modest.
const SCHEDULE = { connections: 32, warmupS: 2, rounds: 5, roundS: 2 }
const IDS_ROTATED = 1000
const LIST_PATH = '/api/v1/orders?status=paid&limit=20'
// Requests a minute per token: far more than a run sends, so no request is refused.
const NO_LIMIT = '1000000000'

const ENDPOINTS: Endpoint[] = [
  { key: 'list', label: 'GET /orders?status=paid&limit=20', target: 1.2, coldTarget: 0.8 },
  { key: 'get', label: 'GET /orders/{id}', target: 0.9, coldTarget: 0.6 },
]

const log = (line: string) => console.log(`bench: ${line}`)

/**
 * The servers must answer the same records before their speed is worth comparing, and the
 * baseline's stand-in headers must be the ones the product sends.
 */
async function checkSameAnswers(servers: ServerProcess[], token: string, id: string) {
  const get = async (url: string) => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
    const names = [...response.headers.keys()].filter((n) => n !== 'date' && n !== 'content-length')
    return { body: (await response.json()) as { data?: { id: string }[] }, names: names.sort().join(' ') }
  }
  const product = servers[0]!
  const [baseline, withHeaders] = servers.slice(-2)
  // Every replica of a group too: each must answer as the product does.
  const urls = [
    product.url,
    ...servers.slice(1, -2).flatMap((s) => s.urls ?? [s.url]),
    baseline!.url,
    withHeaders!.url,
  ]
  for (const path of [LIST_PATH, `/api/v1/orders/${id}`]) {
    const answers = await Promise.all(urls.map((url) => get(`${url}${path}`)))
    const [a, b, c] = [answers[0], answers.at(-2), answers.at(-1)]
    if (answers.slice(1, -2).some((x) => JSON.stringify(x.body) !== JSON.stringify(a!.body)))
      throw new Error(`the product's servers (--no-cache, replicas) answer ${path} differently`)
    const same = (x: typeof a) =>
      path === LIST_PATH ? JSON.stringify(x!.body.data?.map((r) => r.id)) : JSON.stringify(x!.body)
    if (path === LIST_PATH && a!.body.data?.length !== 20) throw new Error('the product lists no 20 orders')
    if (same(a) !== same(b) || same(a) !== same(c))
      throw new Error(
        `${product!.name}, ${baseline!.name} and ${withHeaders!.name} answer ${path} differently`,
      )
    if (a!.names !== c!.names)
      throw new Error(
        `${withHeaders!.name} answers ${path} with headers ${c!.names}, the product with ${a!.names}`,
      )
  }
}

function loadGeneratorVersion(tool: LoadTool): string {
  if (tool === 'wrk') return Bun.spawnSync(['wrk', '--version']).stdout.toString().split(' ')[1] ?? '?'
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8'))
  return String(pkg.version)
}

function runInfo(tool: LoadTool): RunInfo {
  return {
    date: new Date().toISOString().slice(0, 10),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    kernel: release(),
    bun: Bun.version,
    tool,
    loadGenerator: `${tool} ${loadGeneratorVersion(tool)}`,
    orders: ORGS * ORDERS_PER_ORG,
    orgs: ORGS,
    connections: SCHEDULE.connections,
    warmupS: SCHEDULE.warmupS,
    rounds: SCHEDULE.rounds,
    roundS: SCHEDULE.roundS,
    idsRotated: IDS_ROTATED,
  }
}

const USAGE = 'usage: npm run bench [-- --wrk] [-- --postgres] [-- --reads]'

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    const rows = ROW_ORDER.map((name) => `  ${name}`).join('\n')
    console.log(`${USAGE}\n\nMeasures these targets and writes them into docs/performance.md:\n${rows}`)
    return 0
  }
  const unknown = argv.filter((arg) => arg !== '--wrk' && arg !== '--postgres' && arg !== '--reads')
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]} (${USAGE})`)
  const onPostgres = argv.includes('--postgres')
  const tool: LoadTool = argv.includes('--wrk') ? 'wrk' : 'autocannon'
  if (tool === 'wrk' && !hasWrk()) throw new Error('wrk is not installed (apt-get install -y wrk)')
  const schedule: Schedule = { tool, ...SCHEDULE }
  const dbPath = join(ROOT, DATABASE_FILE)
  await ensureDatabase(dbPath, log)
  // On PostgreSQL: the same rows, copied into a throwaway server; the baseline runs on Bun.sql.
  const pg = onPostgres ? await postgresBench(dbPath, IDS_ROTATED, log) : undefined
  const db = pg?.url ?? dbPath
  const tenant = pg?.tenant ?? (await benchTenant(dbPath, IDS_ROTATED))
  const servers: ServerProcess[] = []
  const rows: TargetRow[] = []
  try {
    const serve = ['server/main.ts', 'serve', '--host', '127.0.0.1', '--db', db]
    // On PostgreSQL two replicas share one issuer, as behind a proxy: a token of one is good on both.
    if (onPostgres) serve.push('--base-url', 'http://127.0.0.1:8080')
    // The limiter still counts every request (its cost is part of the product's) but never refuses one.
    const env = { API_RATE_LIMIT: NO_LIMIT }
    const product = await startServer('product', [BUN, ...serve], { cwd: ROOT, env })
    servers.push(product)
    // The same issuer as the product's, so that one token serves both (on PostgreSQL every server has it).
    const withoutCache = [BUN, ...serve, '--no-cache', ...(onPostgres ? [] : ['--base-url', product.url])]
    servers.push(await startServer('product --no-cache', withoutCache, { cwd: ROOT, env }))
    const second = onPostgres
      ? await startServer('product replica 2', [BUN, ...serve], { cwd: ROOT, env })
      : undefined
    // The same requests split between two replicas on the same database.
    if (second) servers.push(replicas('product, 2 replicas', [product, second]))
    const baselineArgs = ['bench/baseline-server.ts', '--db', db, '--org', tenant.orgId]
    servers.push(await startServer('baseline', [BUN, ...baselineArgs], { cwd: ROOT }))
    const withHeaders = [BUN, ...baselineArgs, '--product-headers']
    servers.push(await startServer('baseline + headers', withHeaders, { cwd: ROOT }))
    const token = await clientToken(
      product.url,
      { id: tenant.clientId, secret: tenant.clientSecret },
      'read:orders',
    )
    await checkSameAnswers(servers, token, tenant.orderIds[0]!)
    const measurements: Measurement[] = []
    const headers = { Authorization: `Bearer ${token}` }
    const ids = tenant.orderIds
    const paths = {
      list: () => LIST_PATH,
      get: (n: number) => `/api/v1/orders/${ids[n % ids.length]}`,
    }
    for (const endpoint of ENDPOINTS) {
      const measured = await measureEndpoint(
        endpoint,
        servers,
        { path: paths[endpoint.key], headers },
        schedule,
      )
      for (const m of measured) log(`${m.server} ${endpoint.label}: ${m.load.rps.toFixed(0)} req/s`)
      measurements.push(...measured)
    }
    const graphql = await benchGraphQL(servers.slice(0, 2), token, schedule, log)
    console.log(`\n${textTable(measurements, ENDPOINTS)}\n`)
    writeResults(
      join(ROOT, 'docs/performance.md'),
      onPostgres ? 'postgres' : tool,
      markdownResults(measurements, ENDPOINTS, runInfo(tool)).replace(
        'by `npm run bench`',
        onPostgres
          ? 'by `npm run bench -- --postgres` (PostgreSQL 15; one replica, and two on the same database)'
          : 'by `npm run bench`',
      ),
    )
    graphql.write(join(ROOT, 'docs/performance.md'), onPostgres ? 'postgres' : tool)
    console.log(`\n${graphql.text}\n`)
    log('wrote docs/performance.md')
    const missed = verdicts(measurements, ENDPOINTS).filter((v) => !v.met)
    for (const v of missed)
      log(`target missed: ${v.endpoint.label} at ${(v.ratio * 100).toFixed(0)}% of the baseline`)
    rows.push(...readRows(measurements, onPostgres))
    const [cached, cold] = [graphql.ratios.product!, graphql.ratios['product --no-cache']!]
    rows.push({
      workload: 'GraphQL list',
      target: `>= ${Math.round(GRAPHQL_TARGET * 100)}% of the REST list`,
      measured: `${Math.round(cached * 100)}% of the cached REST list; ${Math.round(cold * 100)}% with \`--no-cache\``,
      met: cached >= GRAPHQL_TARGET,
    })
  } finally {
    for (const server of servers) await server.stop()
    await pg?.postgres.stop()
  }
  if (argv.includes('--reads')) rows.push(...otherRows('not run (`-- --reads`)'))
  else rows.push(...(onPostgres ? otherRows('measured on SQLite by `npm run bench`') : await sqliteRows()))
  const order = ROW_ORDER.map(
    (name) =>
      rows.find((r) => r.workload === name) ?? {
        workload: name,
        target: '',
        measured: 'not measured',
        met: null,
      },
  )
  console.log(`\n${targetsText(order)}\n`)
  const section = onPostgres ? 'targets-postgres' : tool === 'wrk' ? 'targets-wrk' : 'targets'
  const command = `npm run bench${onPostgres ? ' -- --postgres' : tool === 'wrk' ? ' -- --wrk' : ''}`
  writeResults(
    join(ROOT, 'docs/performance.md'),
    section,
    targetsMarkdown(
      order,
      `Measured ${runInfo(tool).date} by \`${command}\`${onPostgres ? ' (reads on PostgreSQL 15)' : ''}.`,
    ),
  )
  log('wrote the targets into docs/performance.md')
  return 0
}

/** The targets' rows in the issue's order; each benchmark adds its own. */
const ROW_ORDER = [
  "hot list (the bench's list, cache on)",
  'hot GET by id (cache on)',
  'cold list / GET by id (`--no-cache`)',
  '90% reads / 10% writes, cache on',
  'POST with Idempotency-Key + event',
  'list p50, 10k -> 1M orders, first page and page 1,000',
  'GraphQL list',
  'peak RSS / start RSS',
  'PostgreSQL list and GET by id',
  ...BULK_WORKLOADS,
]

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  },
)
