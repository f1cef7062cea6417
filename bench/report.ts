import type { LoadResult, LoadTool } from './load.ts'

/**
 * `baseline + headers` is the baseline answering with the product's response headers: it shows
 * how much of the gap the HTTP semantics alone account for, and is what `product --no-cache` (every
 * read from the database) is held to. `product` runs with its response cache, as by default.
 */
export type ServerName =
  | 'product'
  | 'product --no-cache'
  | 'product, 2 replicas'
  | 'baseline'
  | 'baseline + headers'
const SERVERS: readonly ServerName[] = [
  'product',
  'product --no-cache',
  'product, 2 replicas',
  'baseline',
  'baseline + headers',
]

export interface Endpoint {
  key: 'list' | 'get'
  label: string
  /** The share of the baseline's req/s the product (response cache on) must reach. */
  target: number
  /** The share of `baseline + headers`' req/s the product must reach with `--no-cache`. */
  coldTarget: number
}

export interface Measurement {
  endpoint: Endpoint
  server: ServerName
  load: LoadResult
  /** The server's VmHWM after this run (its peak since start), in bytes. */
  peakRss: number
  /** The server's VmRSS once it had started, in bytes. */
  startRss: number
  /** CPU used during the measured run, in cores (1 = one core busy the whole time). */
  serverCores: number
  loadGeneratorCores: number
  /** CPU used by everything else on the machine meanwhile, in cores: other work skews the numbers. */
  otherCores: number
}

export interface RunInfo {
  date: string
  cpus: number
  cpuModel: string
  memoryBytes: number
  kernel: string
  bun: string
  tool: LoadTool
  /** `autocannon 9.0.0`. */
  loadGenerator: string
  orders: number
  orgs: number
  connections: number
  warmupS: number
  rounds: number
  roundS: number
  idsRotated: number
}

interface Verdict {
  endpoint: Endpoint
  ratio: number
  /** The same ratio per core each server used: the cost per request, less swayed by other load. */
  perCoreRatio: number
  met: boolean
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const ms = (value: number) => value.toFixed(2)
const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`

export function find(all: Measurement[], endpoint: Endpoint, server: ServerName): Measurement {
  const found = all.find((m) => m.endpoint.key === endpoint.key && m.server === server)
  if (!found) throw new Error(`no ${server} measurement for ${endpoint.label}`)
  return found
}

const perCore = (m: Measurement) => m.load.rps / m.serverCores

/** Product req/s over baseline req/s, per endpoint, against its target. */
export function verdicts(all: Measurement[], endpoints: Endpoint[]): Verdict[] {
  return endpoints.map((endpoint) => {
    const product = find(all, endpoint, 'product')
    const baseline = find(all, endpoint, 'baseline')
    const ratio = product.load.rps / baseline.load.rps
    return {
      endpoint,
      ratio,
      perCoreRatio: perCore(product) / perCore(baseline),
      met: ratio >= endpoint.target,
    }
  })
}

function rows(all: Measurement[], endpoints: Endpoint[]): string[][] {
  const out: string[][] = []
  for (const endpoint of endpoints) {
    const baseline = find(all, endpoint, 'baseline')
    for (const server of SERVERS) {
      if (!all.some((m) => m.endpoint.key === endpoint.key && m.server === server)) continue
      const m = find(all, endpoint, server)
      out.push([
        endpoint.label,
        server,
        m.load.rps.toFixed(0),
        perCore(m).toFixed(0),
        ms(m.load.p50),
        ms(m.load.p99),
        mib(m.peakRss),
        m.serverCores.toFixed(2),
        m.loadGeneratorCores.toFixed(2),
        m.otherCores.toFixed(2),
        pct(m.load.rps / baseline.load.rps),
      ])
    }
  }
  return out
}

const HEADER = [
  'endpoint',
  'server',
  'req/s',
  'req/s per server core',
  'p50 ms',
  'p99 ms',
  'peak RSS MiB',
  'server CPU',
  'load-gen CPU',
  'other CPU',
  'vs baseline',
]

/** The results as a plain-text table for the terminal. */
export function textTable(all: Measurement[], endpoints: Endpoint[]): string {
  const table = [HEADER, ...rows(all, endpoints)]
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => row[i]!.length)))
  return table.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')).join('\n')
}

// When the two ratios disagree on the target, the run says so rather than pick one.
function perCoreVerdict(v: Verdict): string {
  const perCoreMet = v.perCoreRatio >= v.endpoint.target
  if (perCoreMet === v.met) return ''
  return `, which would have ${perCoreMet ? 'met' : 'missed'} it: this run's verdict is not reliable`
}

/** The baseline with the product's headers, as a share of the bare baseline's req/s. */
function headersOnly(all: Measurement[], endpoint: Endpoint): number {
  return find(all, endpoint, 'baseline + headers').load.rps / find(all, endpoint, 'baseline').load.rps
}

/** Cores a load generator may use before it, not the server, may be what sets the pace. */
const LOAD_GENERATOR_BOUND = 0.85

function cautions(all: Measurement[], cpus: number): string[] {
  const notes: string[] = []
  for (const m of all.filter(
    (m) => !m.server.startsWith('product') && m.loadGeneratorCores >= LOAD_GENERATOR_BOUND,
  ))
    notes.push(
      `The load generator used ${m.loadGeneratorCores.toFixed(2)} cores loading ${m.server} on ${m.endpoint.label}: ` +
        `it, not that server, may have set the pace, so its req/s is a floor and the ratio to it an upper bound.`,
    )
  const other = Math.max(...all.map((m) => m.otherCores))
  if (other >= 0.1)
    notes.push(
      `Other processes used up to ${other.toFixed(2)} cores of this ${cpus}-core machine during the run: the ` +
        'absolute numbers are lower and noisier than on an idle machine; the ratios less so, since the ' +
        'servers alternated.',
    )
  return notes.flatMap((note) => ['', note])
}

/** The generated part of docs/performance.md: results, verdicts and the machine. */
export function markdownResults(all: Measurement[], endpoints: Endpoint[], info: RunInfo): string {
  const table = [HEADER, HEADER.map(() => '---'), ...rows(all, endpoints)]
  const lines = [
    `Measured ${info.date} by \`npm run bench${info.tool === 'wrk' ? ' -- --wrk' : ''}\`.`,
    '',
    ...table.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...verdicts(all, endpoints).map(
      (v) =>
        `- ${v.endpoint.label}: the product serves **${pct(v.ratio)}** of the baseline's req/s ` +
        `(target ${pct(v.endpoint.target)}): **${v.met ? 'met' : 'missed'}**; per server core ` +
        `${pct(v.perCoreRatio)}${perCoreVerdict(v)}. The baseline answering with the product's ` +
        `headers serves ${pct(headersOnly(all, v.endpoint))}.`,
    ),
    ...endpoints.map((endpoint) => {
      const cold = find(all, endpoint, 'product --no-cache').load.rps
      const ratio = cold / find(all, endpoint, 'baseline + headers').load.rps
      return (
        `- ${endpoint.label} with \`--no-cache\`: **${pct(ratio)}** of baseline + headers ` +
        `(target ${pct(endpoint.coldTarget)}): **${ratio >= endpoint.coldTarget ? 'met' : 'missed'}**.`
      )
    }),
    ...SERVERS.map((server) => {
      const m = all.find((x) => x.server === server)
      const peak = Math.max(...all.filter((x) => x.server === server).map((x) => x.peakRss))
      return m ? `- ${server}: RSS ${mib(m.startRss)} MiB after start, peak ${mib(peak)} MiB.` : ''
    }).filter((line) => line !== ''),
    ...cautions(all, info.cpus),
    '',
    `Machine: ${info.cpus} CPUs (${info.cpuModel}), ${(info.memoryBytes / 1024 ** 3).toFixed(1)} GiB memory, ` +
      `Linux ${info.kernel}, Bun ${info.bun}, load generator ${info.loadGenerator}.`,
    '',
    `Data: ${info.orders.toLocaleString('en')} orders in ${info.orgs} organizations (one event per order). ` +
      `Load: ${info.connections} connections; per endpoint and server ${info.warmupS} s warm-up, then ` +
      `${info.rounds} rounds of ${info.roundS} s alternating between the servers ` +
      `(${info.rounds * info.roundS} s measured each); GET by id rotates through ${info.idsRotated} ids ` +
      `of the token's organization.`,
  ]
  return lines.join('\n')
}
