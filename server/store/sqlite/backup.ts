import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { DatabaseFileError } from '../types.ts'
import { createPrivateFile } from './db-file.ts'

/**
 * Writes a consistent copy of a live database to `file` (refusing an existing file). The file is
 * created first with mode 0600, as the database is, and `VACUUM INTO` (which accepts an empty
 * file) fills it. `VACUUM INTO` reads one snapshot, so writers of a serving instance carry on
 * meanwhile. It may renumber the rowids of tables without an INTEGER PRIMARY KEY, which the
 * full-text indexes (external-content FTS5 tables keyed by rowid) point at, so they are rebuilt
 * in the copy.
 */
export function backupDatabase(db: Database, file: string): void {
  createPrivateFile(file, { existing: 'refuse' })
  try {
    db.run('VACUUM INTO ?', [file])
    const copy = new Database(file, { strict: true })
    try {
      const indexes = copy
        .query(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'",
        )
        .all() as { name: string }[]
      copy.transaction(() => {
        for (const { name } of indexes) copy.run(`INSERT INTO "${name}"("${name}") VALUES ('rebuild')`)
      })()
      copy.run('PRAGMA journal_mode = WAL')
    } finally {
      copy.close()
    }
  } catch (error) {
    // A half-written copy must not pass for a backup.
    for (const part of [file, `${file}-wal`, `${file}-shm`]) rmSync(part, { force: true })
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    throw new DatabaseFileError(`cannot write the backup ${file}: ${reason}`)
  }
}
