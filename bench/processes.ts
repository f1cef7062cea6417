import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

export { clientToken } from '../test/support/tokens.ts'

/** Bun from the project's own devDependency, never a global one. */
export const BUN = 'node_modules/.bin/bun'

const ROOT = join(import.meta.dir, '..')

/** An `api-server` admin command on `db` with `--json`: its answer, or its stderr in the error. */
export async function adminCommand(db: string, ...args: string[]): Promise<Record<string, string>> {
  const run = Bun.spawn([BUN, 'server/main.ts', ...args, '--db', db, '--json'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()])
  if ((await run.exited) !== 0) throw new Error(`api-server ${args.join(' ')} failed: ${err.trim()}`)
  return JSON.parse(out) as Record<string, string>
}

export interface ServerProcess {
  name: string
  url: string
  /** Where load goes, split evenly: `[url]`, or every replica's of a group (`replicas`). */
  urls?: string[]
  pid: number
  /** Peak resident set size so far, in bytes (VmHWM: the kernel keeps the high-water mark). */
  peakRss: () => number
  /** Resident set size once it answered its first request, in bytes (VmRSS then). */
  startRss: number
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds: () => number
  stop: () => Promise<void>
}

function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
  return match ? Number(match[1]) * 1024 : 0
}

// Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on.
const TICKS_PER_S = 100

function cpuSecondsOf(pid: number): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime are fields 14 and 15, i.e. 11 and 12 after the state (field 3).
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S
}

/**
 * CPU time used so far by a process and its children (user + system, in seconds): the live
 * children's own, and what the ones it has reaped used (cutime, cstime). PostgreSQL's postmaster
 * and its backends, for example.
 */
export function treeCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  let total =
    (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_S
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const child = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const rest = child.slice(child.lastIndexOf(')') + 2).split(' ')
      // The parent's id is the field after the state.
      if (Number(rest[1]) === pid) total += cpuSecondsOf(Number(entry))
    } catch {
      // Gone between the listing and the read.
    }
  }
  return total
}

/** CPU time the whole machine spent busy so far (all cores, all processes), in seconds. */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number)
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_S
  )
}

const running = new Set<Subprocess>()

// A failed or interrupted run must not leave servers behind: they go with this process.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})
for (const [signal, status] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => process.exit(status))
}

/** A port free on the loopback address right now (the server is started on it just after). */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

async function waitUntilListening(url: string, child: Subprocess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited (${child.exitCode ?? child.signalCode})`)
    // Any answer, even a 404, means it listens; but the product answers 503 while it is still
    // starting (its port opens before its routes are ready), so that one means not yet.
    if (
      await fetch(url).then(
        (response) => response.status !== 503,
        () => false,
      )
    )
      return
    await Bun.sleep(100)
  }
  throw new Error(`not listening within ${timeoutMs} ms`)
}

/**
 * Starts a server with `--port N` appended to `argv` and waits until it answers on 127.0.0.1.
 * Its standard output (the product's access log) is discarded, so reading it costs this process
 * (which also runs autocannon) nothing; standard error is passed through so a crash says why.
 */
export async function startServer(
  name: string,
  argv: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<ServerProcess> {
  const port = freePort()
  const child = Bun.spawn([...argv, '--port', String(port)], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdout: 'ignore',
    stderr: 'inherit',
    stdin: 'ignore',
  })
  running.add(child)
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killed = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await child.exited
      clearTimeout(killed)
    }
    running.delete(child)
  }
  const url = `http://127.0.0.1:${port}`
  try {
    await waitUntilListening(url, child, options.timeoutMs ?? 20_000)
    return {
      name,
      url,
      pid: child.pid,
      peakRss: () => statusField(child.pid, 'VmHWM'),
      startRss: statusField(child.pid, 'VmRSS'),
      cpuSeconds: () => cpuSecondsOf(child.pid),
      stop,
    }
  } catch (error) {
    await stop()
    throw new Error(`${name} did not start: ${(error as Error).message}`)
  }
}

/**
 * Several servers as one under load (replicas behind a proxy, without the proxy): the load
 * generator splits its connections between them; CPU and peak memory are their sums.
 */
export function replicas(name: string, servers: ServerProcess[]): ServerProcess {
  return {
    name,
    url: servers[0]!.url,
    urls: servers.map((s) => s.url),
    pid: servers[0]!.pid,
    peakRss: () => servers.reduce((sum, s) => sum + s.peakRss(), 0),
    startRss: servers.reduce((sum, s) => sum + s.startRss, 0),
    cpuSeconds: () => servers.reduce((sum, s) => sum + s.cpuSeconds(), 0),
    stop: async () => {
      for (const server of servers) await server.stop()
    },
  }
}
