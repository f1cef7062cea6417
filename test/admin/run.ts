import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '../..')

export interface Run {
  status: number
  stdout: string
  stderr: string
}

/** Runs `api-server <args> --db <db>` as a subprocess with the Bun running the tests. */
export async function runAdmin(args: string[], db: string): Promise<Run> {
  const proc = Bun.spawn([process.execPath, 'server/main.ts', ...args, '--db', db], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, API_DB: undefined },
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
