import { cpus, loadavg } from 'node:os'
import { machineBusySeconds } from './processes.ts'

export interface MachineMeter {
  /** Cores the whole machine kept busy on average since the meter started. */
  busyCores: () => number
  /** That, with the machine, as a sentence for docs/performance.md; `during` names the stretch measured. */
  describe: (during: string) => string
}

/**
 * Starts measuring how busy the whole machine is (every process, from /proc/stat). The benches
 * run on a small machine shared with other work, so each says how loaded it was while it measured.
 */
export function machineMeter(): MachineMeter {
  const cpu0 = machineBusySeconds()
  const started = performance.now()
  const busyCores = () => (machineBusySeconds() - cpu0) / ((performance.now() - started) / 1000)
  return {
    busyCores,
    describe: (during) =>
      `The machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), Bun ${Bun.version}, ` +
      `shared with other work; ${during} it was busy ${busyCores().toFixed(2)} cores on average (this ` +
      `process and the servers it started included), load average ${loadavg()[0]!.toFixed(1)} at the end.`,
  }
}
