import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '../..')

export interface Run {
  status: number
  stdout: string
  stderr: string
}

export interface AdminOptions {
  /**
   * Run as the unprivileged user `nobody` when the tests run as root, for whom no file is
   * read-only (see `RUNNER_UID`).
   */
  unprivileged?: boolean
  /** The command's umask, in octal as the shell takes it (`000`). */
  umask?: string
  /** Working directory (default: the repository). */
  cwd?: string
  /** Kill the command after this long: one that should fail might serve forever instead. */
  timeoutMs?: number
}

const AS_ROOT = process.getuid?.() === 0
/** The user an `unprivileged` command runs as: `nobody` under root, else the tests' own user. */
export const RUNNER_UID = AS_ROOT ? 65534 : process.getuid?.()

/** The argv of `api-server <args> --db <db>` (no `--db` when `db` is null) run with `options`. */
export function adminCommand(args: string[], db: string | null, options: AdminOptions = {}): string[] {
  let argv = [process.execPath, join(ROOT, 'server/main.ts'), ...args, ...(db === null ? [] : ['--db', db])]
  if (options.umask !== undefined) argv = ['sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...argv]
  if (options.unprivileged && AS_ROOT)
    argv = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv]
  return argv
}

/** Runs `api-server <args> --db <db>` as a subprocess with the Bun running the tests. */
export async function runAdmin(args: string[], db: string | null, options: AdminOptions = {}): Promise<Run> {
  const proc = Bun.spawn(adminCommand(args, db, options), {
    cwd: options.cwd ?? ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, API_DB: undefined },
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
export async function runOk(args: string[], db: string): Promise<string> {
  const run = await runAdmin(args, db)
  if (run.status !== 0) throw new Error(`api-server ${args.join(' ')} failed (${run.status}): ${run.stderr}`)
  return run.stdout
}

/** The database file's bytes, with its write-ahead log if one is left. */
export function databaseBytes(db: string): Buffer {
  const parts = [db, `${db}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path))
  return Buffer.concat(parts)
}
