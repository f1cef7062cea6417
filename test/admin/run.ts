import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { onPostgres } from '../support/backend.ts'
import { postgresDatabase } from '../support/server.ts'

export const ROOT = join(import.meta.dir, '../..')

interface Run {
  status: number
  stdout: string
  stderr: string
}

interface AdminOptions {
  /**
   * Run without the privilege to pass over file permissions, for whom a read-only file is
   * read-only: under root, root without CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER.
   */
  unprivileged?: boolean
  /** The command's umask, in octal as the shell takes it (`000`). */
  umask?: string
  /** Working directory (default: the repository). */
  cwd?: string
  /** Kill the command after this long: one that should fail might serve forever instead. */
  timeoutMs?: number
  /** Environment variables to set (or, undefined, to remove) for this run. */
  env?: Record<string, string | undefined>
  /** What the command reads on standard input (none when not given). */
  stdin?: string
}

const AS_ROOT = process.getuid?.() === 0
/**
 * The capabilities root passes over file permissions with. An `unprivileged` command runs without
 * them rather than as another user, so a file's mode binds it while it still reads the checkout
 * wherever that is (one in a directory only root may enter, as `mktemp -d` makes, is out of
 * `nobody`'s reach).
 */
const OVERRIDES = '-dac_override,-dac_read_search,-fowner'

/** The argv of `api-server <args> --db <db>` (no `--db` when `db` is null) run with `options`. */
export function adminCommand(args: string[], db: string | null, options: AdminOptions = {}): string[] {
  let argv = [process.execPath, join(ROOT, 'server/main.ts'), ...args, ...(db === null ? [] : ['--db', db])]
  if (options.umask !== undefined) argv = ['sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...argv]
  if (options.unprivileged && AS_ROOT) argv = ['setpriv', `--bounding-set=${OVERRIDES}`, '--', ...argv]
  return argv
}

/** Runs `api-server <args> --db <db>` as a subprocess with the Bun running the tests. */
export async function runAdmin(args: string[], db: string | null, options: AdminOptions = {}): Promise<Run> {
  const proc = Bun.spawn(adminCommand(args, db, options), {
    cwd: options.cwd ?? ROOT,
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, API_DB: undefined, ...options.env },
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
  })
  const [stdout, stderr, status] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { status, stdout, stderr }
}

/** Runs a command that must succeed and returns its stdout. */
export async function runOk(args: string[], db: string, options: AdminOptions = {}): Promise<string> {
  const run = await runAdmin(args, db, options)
  if (run.status !== 0) throw new Error(`api-server ${args.join(' ')} failed (${run.status}): ${run.stderr}`)
  return run.stdout
}

/** The database file's bytes, with its write-ahead log if one is left. */
export function databaseBytes(db: string): Buffer {
  const parts = [db, `${db}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path))
  return Buffer.concat(parts)
}

export interface ServeProcess {
  url: string
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Everything it wrote so far on each stream. */
  stdout: () => string
  stderr: () => string
  /** SIGTERM, then its exit status. */
  stop: () => Promise<number>
}

/**
 * Starts `api-server serve <args>` (`command` replaces `bun server/main.ts`, for a compiled
 * binary) and waits until it says where it listens.
 */
export async function startServe(
  args: string[],
  options: { command?: string[]; env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<ServeProcess> {
  const command = options.command ?? [process.execPath, join(ROOT, 'server/main.ts')]
  const proc = Bun.spawn([...command, 'serve', ...args], {
    cwd: options.cwd ?? ROOT,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, API_DB: undefined, API_BASE_URL: undefined, ...options.env },
  })
  const text = { stdout: '', stderr: '' }
  const drain = async (name: 'stdout' | 'stderr') => {
    const reader = proc[name].getReader()
    const decoder = new TextDecoder()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      text[name] += decoder.decode(value, { stream: true })
    }
  }
  const drained = Promise.all([drain('stdout'), drain('stderr')])
  const deadline = Date.now() + 20_000
  let url: string | undefined
  while (!url) {
    url = /listening on (https?:\/\/\S+)/.exec(text.stderr)?.[1]
    if (url) break
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill('SIGKILL')
      throw new Error(`api-server serve did not start: ${text.stdout}${text.stderr}`)
    }
    await Bun.sleep(20)
  }
  return {
    url,
    proc,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
      const status = await proc.exited
      clearTimeout(killer)
      await drained
      return status
    },
  }
}

/**
 * A new database for admin commands on the suite's backend: a SQLite file in `dir`, or under
 * `npm run test:postgres` a fresh PostgreSQL database's URL.
 */
export async function adminDatabase(dir: string, name: string): Promise<string> {
  return onPostgres ? postgresDatabase() : join(dir, `${name}.db`)
}

/** A loopback port free now, so that replicas can name the first as their issuer before it starts. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
