/**
 * The rows of the targets that `npm run bench` measures after the reads, on SQLite whatever the
 * reads ran on: the writes, the 90/10 mix, the list by collection size and the bulk benchmarks.
 */
import { bulkRows, bulkRowsNotMeasured } from './bulk.ts'
import { runMix } from './mix.ts'
import { runSize } from './size.ts'
import type { TargetRow } from './targets.ts'
import { sqliteWrites, WRITE_TARGET } from './writes.ts'

/** The write, mix, size and bulk benchmarks (SQLite), one after the other, as target rows. */
export async function sqliteRows(): Promise<TargetRow[]> {
  const writes = await sqliteWrites()
  const mix = await runMix()
  const size = await runSize()
  const bulk = await bulkRows()
  return [
    {
      workload: 'POST with Idempotency-Key + event',
      target: `>= ${Math.round(WRITE_TARGET * 100)}% of the raw insert baseline`,
      measured: `${Math.round(writes.full * 100)}% (\`--durability full\`, the default); ${Math.round(writes.fast * 100)}% with \`fast\``,
      met: writes.full >= WRITE_TARGET,
    },
    {
      workload: '90% reads / 10% writes, cache on',
      target: '>= 1.0 x the same mix with `--no-cache`, 0 stale reads',
      measured: `${Math.round(mix.ratio * 100)}%, ${mix.stale} stale of ${mix.checks} checked writes`,
      met: mix.ratio >= 1 && mix.stale === 0,
    },
    {
      workload: 'list p50, 10k -> 1M orders, first page and page 1,000',
      target: 'within 20% of each other',
      measured: `the slowest ${Math.round((size.spread - 1) * 100)}% above the fastest; \`include_total\` at 1M: ${size.totalMs.toFixed(1)} ms`,
      met: size.spread <= 1.2,
    },
    ...bulk,
  ]
}

/** The rows of the write, mix, size and bulk benchmarks when this run did not measure them, saying why. */
export function otherRows(why: string): TargetRow[] {
  const elsewhere = (workload: string, target: string): TargetRow => ({
    workload,
    target,
    measured: why,
    met: null,
  })
  return [
    elsewhere(
      'POST with Idempotency-Key + event',
      `>= ${Math.round(WRITE_TARGET * 100)}% of the raw insert baseline`,
    ),
    elsewhere('90% reads / 10% writes, cache on', '>= 1.0 x the same mix with `--no-cache`, 0 stale reads'),
    elsewhere('list p50, 10k -> 1M orders, first page and page 1,000', 'within 20% of each other'),
    ...bulkRowsNotMeasured(why),
  ]
}
