/**
 * The optional load generator: Debian's wrk (`apt-get install -y wrk`), for `npm run bench -- --wrk`.
 * Written in C, it needs far less CPU per request than autocannon, so on a small machine it can
 * push a fast server harder.
 */
import { join } from 'node:path'
import type { LoadOptions, LoadSample } from './load.ts'

const SCRIPT = join(import.meta.dir, 'wrk-report.lua')
// The Lua script cycles through this many paths; enough to spread lookups over the whole table.
const PATHS = 1000

interface WrkReport {
  requests: number
  durationUs: number
  failures: number
  quantilesUs: number[]
}

function parseReport(stdout: string): WrkReport {
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'))
  if (!line) throw new Error(`wrk printed no report:\n${stdout}`)
  const report: unknown = JSON.parse(line)
  const r = report as Partial<WrkReport>
  const ok =
    typeof r.requests === 'number' &&
    typeof r.durationUs === 'number' &&
    typeof r.failures === 'number' &&
    Array.isArray(r.quantilesUs) &&
    r.quantilesUs.every((q) => typeof q === 'number')
  if (!ok) throw new Error(`unexpected wrk report: ${line.slice(0, 200)}`)
  return report as WrkReport
}

/** Whether wrk is installed here. */
export function hasWrk(): boolean {
  return Bun.which('wrk') !== null
}

export async function runWrk(options: LoadOptions): Promise<LoadSample> {
  const paths = [...new Set(Array.from({ length: PATHS }, (_, n) => options.path(n)))]
  const headers = Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  // One thread: with two cores, the other one belongs to the server under load.
  const argv = ['wrk', '-t1', `-c${options.connections}`, `-d${options.durationS}s`, ...headers]
  // A method and body for every request go first, as `--method M --body B` (read by the script).
  const request =
    options.body === undefined ? [] : ['--method', options.method ?? 'POST', '--body', options.body]
  const child = Bun.spawn([...argv, '-s', SCRIPT, options.url, '--', ...request, ...paths], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (status !== 0) throw new Error(`wrk exited with ${status}: ${stderr.trim()}`)
  const report = parseReport(stdout)
  const cpu = child.resourceUsage()?.cpuTime
  const good = report.requests - report.failures
  return {
    requests: good,
    latencies: report.quantilesUs.map((us) => us / 1000),
    weight: good / report.quantilesUs.length,
    seconds: report.durationUs / 1e6,
    failures: report.failures,
    cpuS: cpu ? Number(cpu.user + cpu.system) / 1e6 : Number.NaN,
  }
}
