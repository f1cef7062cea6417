/**
 * The bulk benchmarks' rows of the targets (issue 27): aggregates over 1,000,000 orders, `api
 * import` of 100,000 rows, a page as CSV against JSON. Each also runs alone
 * (`npm run bench:aggregates|import|export`) and writes its own block of docs/performance.md.
 */
import { AGGREGATE_TARGET, runAggregates } from './aggregates.ts'
import { runExport } from './csv-export.ts'
import { IMPORT_TARGET, runImport } from './import.ts'
import type { TargetRow } from './targets.ts'

const pct = (ratio: number) => `${Math.round(ratio * 100)}%`

const WORKLOADS = {
  aggregates: 'aggregate p50, 1M orders, by status / by day',
  import: '`api import` of 100,000 rows',
  export: 'a page of 100 orders as CSV against JSON',
} as const

const TARGETS = {
  aggregates: `>= ${pct(AGGREGATE_TARGET)} of the raw SQL's speed at p50`,
  import: `>= ${pct(IMPORT_TARGET)} of the raw multi-row insert`,
  export: 'none: the ratio is reported',
} as const

/** The bulk rows' names, in the order the targets table shows them. */
export const BULK_WORKLOADS: string[] = Object.values(WORKLOADS)

/** Runs the three bulk benchmarks (SQLite), one after the other, as target rows. */
export async function bulkRows(): Promise<TargetRow[]> {
  const aggregates = await runAggregates()
  const imported = await runImport()
  const exported = await runExport()
  return [
    {
      workload: WORKLOADS.aggregates,
      target: TARGETS.aggregates,
      measured: `${pct(aggregates.status)} / ${pct(aggregates.day)} (\`--no-cache\`)`,
      met: aggregates.status >= AGGREGATE_TARGET && aggregates.day >= AGGREGATE_TARGET,
    },
    {
      workload: WORKLOADS.import,
      target: TARGETS.import,
      measured: `${pct(imported.ratio)} of orders and events (\`--durability full\`, ${Math.round(imported.full.imported).toLocaleString('en-US')} records/s); ${pct(imported.fast.imported / imported.fast.rawEvents)} with \`fast\``,
      met: imported.ratio >= IMPORT_TARGET,
    },
    {
      workload: WORKLOADS.export,
      target: TARGETS.export,
      measured: `CSV at ${pct(exported.cached)} of JSON's req/s (cache on); ${pct(exported.uncached)} with \`--no-cache\``,
      met: null,
    },
  ]
}

/** The bulk rows when this run did not measure them, saying why. */
export function bulkRowsNotMeasured(why: string): TargetRow[] {
  return (Object.keys(WORKLOADS) as (keyof typeof WORKLOADS)[]).map((key) => ({
    workload: WORKLOADS[key],
    target: TARGETS[key],
    measured: why,
    met: null,
  }))
}
