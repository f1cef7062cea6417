/**
 * The performance targets, one row each, as `npm run bench` prints them at the end of a run and
 * writes them into docs/performance.md: what was measured, against what, and whether it met the
 * target. Rows another benchmark measures say which.
 */
import { find, type Measurement } from './report.ts'

export interface TargetRow {
  workload: string
  target: string
  /** What this run measured: ratios first, with what they are made of. */
  measured: string
  /** null: not measured by this run (`measured` says where it is). */
  met: boolean | null
}

const MIB = 1024 * 1024
const pct = (ratio: number) => `${Math.round(ratio * 100)}%`
const rps = (m: Measurement) => m.load.rps / m.serverCores

/** The read rows, from the read measurements of this run (SQLite, or PostgreSQL with `--postgres`). */
export function readRows(all: Measurement[], onPostgres: boolean): TargetRow[] {
  const list = all.filter((m) => m.endpoint.key === 'list')
  const get = all.filter((m) => m.endpoint.key === 'get')
  const ratio = (of: Measurement[], server: Measurement['server'], base: Measurement['server']) => {
    const a = of.find((m) => m.server === server)!
    const b = of.find((m) => m.server === base)!
    return { ratio: a.load.rps / b.load.rps, perCore: rps(a) / rps(b) }
  }
  const hotList = ratio(list, 'product', 'baseline')
  const hotGet = ratio(get, 'product', 'baseline')
  const coldList = ratio(list, 'product --no-cache', 'baseline + headers')
  const coldGet = ratio(get, 'product --no-cache', 'baseline + headers')
  const product = find(all, all[0]!.endpoint, 'product')
  const peak = Math.max(...all.filter((m) => m.server === 'product').map((m) => m.peakRss))
  const baseline = onPostgres ? 'the raw Bun.sql baseline' : 'the raw baseline'
  const rows: TargetRow[] = [
    {
      workload: "hot list (the bench's list, cache on)",
      target: `>= 1.2 x ${baseline}`,
      measured: `${pct(hotList.ratio)} (per server core ${pct(hotList.perCore)})`,
      met: hotList.ratio >= 1.2,
    },
    {
      workload: 'hot GET by id (cache on)',
      target: `>= 0.9 x ${baseline}`,
      measured: `${pct(hotGet.ratio)} (per server core ${pct(hotGet.perCore)})`,
      met: hotGet.ratio >= 0.9,
    },
    {
      workload: 'cold list / GET by id (`--no-cache`)',
      target: '>= 80% / >= 60% of "baseline + headers"',
      measured: `${pct(coldList.ratio)} / ${pct(coldGet.ratio)}`,
      met: coldList.ratio >= 0.8 && coldGet.ratio >= 0.6,
    },
    {
      workload: 'peak RSS / start RSS',
      target: '< 100 MiB / < 60 MiB',
      measured: `${Math.round(peak / MIB)} MiB / ${Math.round(product.startRss / MIB)} MiB`,
      met: peak < 100 * MIB && product.startRss < 60 * MIB,
    },
  ]
  const postgres: TargetRow = {
    workload: 'PostgreSQL list and GET by id',
    target: '>= 70% of the raw Bun.sql baseline',
    measured: onPostgres
      ? `${pct(hotList.ratio)} / ${pct(hotGet.ratio)} (cache on); ${pct(ratio(list, 'product --no-cache', 'baseline').ratio)} / ${pct(ratio(get, 'product --no-cache', 'baseline').ratio)} with \`--no-cache\``
      : 'measured by `npm run bench -- --postgres`',
    met: onPostgres ? hotList.ratio >= 0.7 && hotGet.ratio >= 0.7 : null,
  }
  return [...rows, postgres]
}

const verdict = (row: TargetRow) => (row.met === null ? '-' : row.met ? 'met' : 'missed')

/** The rows as a plain-text table for the terminal. */
export function targetsText(rows: TargetRow[]): string {
  const table = [
    ['workload', 'target', 'measured', 'verdict'],
    ...rows.map((r) => [r.workload, r.target, r.measured, verdict(r)]),
  ]
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)))
  return table.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')).join('\n')
}

/** The rows as markdown for docs/performance.md. */
export function targetsMarkdown(rows: TargetRow[], heading: string): string {
  return [
    heading,
    '',
    '| workload | target | measured | verdict |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${r.target} | ${r.measured} | ${r.met === null ? '-' : `**${verdict(r)}**`} |`,
    ),
  ].join('\n')
}
