import { accessSync, closeSync, constants, fchmodSync, openSync, type Stats, statSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { DatabaseFileError } from '../types.ts'

/**
 * Owner read and write only: a database (and a copy of it) holds password hashes, client-secret
 * hashes and signing keys. SQLite gives the `-wal` and `-shm` files the database file's mode.
 */
const PRIVATE_FILE_MODE = 0o600

/**
 * Checks what SQLite needs before it opens `path`, so that a mistake is reported with the path
 * rather than as SQLite's "unable to open database file": the directory exists (it is never
 * created here), the path is not a directory, the file and its directory (where SQLite writes
 * the `-wal` and `-shm` files) are writable. A missing file is created empty with mode 0600; an
 * existing file's mode is left alone.
 */
export function prepareDatabaseFile(path: string): void {
  const dir = requireDirectory(path)
  const stats = statOrNull(path)
  if (stats?.isDirectory()) throw new DatabaseFileError(`${path} is a directory, not a database file`)
  if (stats && !writable(path)) throw new DatabaseFileError(`the database file ${path} is read-only`)
  if (!writable(dir)) {
    throw new DatabaseFileError(
      `the directory ${dir} is read-only (SQLite writes ${basename(path)}-wal and -shm beside the database)`,
    )
  }
  if (!stats) createPrivateFile(path, { existing: 'keep' })
}

/**
 * Creates `path` empty with mode 0600 whatever the umask (chmod before anything is written).
 * `existing: 'refuse'` fails when the file is already there; `'keep'` leaves it as it is.
 */
export function createPrivateFile(path: string, options: { existing: 'refuse' | 'keep' }): void {
  requireDirectory(path)
  let fd: number
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE)
  } catch (error) {
    if (codeOf(error) === 'EEXIST') {
      if (options.existing === 'keep') return
      throw new DatabaseFileError(`${path} exists already`)
    }
    throw new DatabaseFileError(`cannot create ${path}: ${reasonOf(error)}`)
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
  } finally {
    closeSync(fd)
  }
}

/** The directory `path` goes in, which must exist. */
function requireDirectory(path: string): string {
  const dir = dirname(path)
  const stats = statOrNull(dir)
  if (!stats) throw new DatabaseFileError(`the directory ${dir} does not exist`)
  if (!stats.isDirectory()) throw new DatabaseFileError(`${dir} is not a directory`)
  return dir
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null
    throw new DatabaseFileError(`cannot reach ${path}: ${reasonOf(error)}`)
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** The `code` of a Node.js file-system error or a bun:sqlite SQLiteError (`ENOENT`, `SQLITE_NOTADB`). */
export function codeOf(error: unknown): string | undefined {
  // Only read, and checked to be a string: any thrown value may carry a code.
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'it is a directory',
  ENOSPC: 'no space left on the device',
}

/** A short, one-line reason for a file-system error. */
function reasonOf(error: unknown): string {
  const code = codeOf(error)
  if (code && REASONS[code]) return REASONS[code]
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]!
}
