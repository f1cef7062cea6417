import { Database } from 'bun:sqlite'

/**
 * Writes a consistent copy of a live database to `file` (refusing an existing file).
 * `VACUUM INTO` reads one snapshot, so writers of a serving instance carry on meanwhile. It may
 * renumber the rowids of tables without an INTEGER PRIMARY KEY, which the full-text indexes
 * (external-content FTS5 tables keyed by rowid) point at, so they are rebuilt in the copy.
 */
export function backupDatabase(db: Database, file: string): void {
  db.run('VACUUM INTO ?', [file])
  const copy = new Database(file, { strict: true })
  try {
    const indexes = copy
      .query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")
      .all() as { name: string }[]
    copy.transaction(() => {
      for (const { name } of indexes) copy.run(`INSERT INTO "${name}"("${name}") VALUES ('rebuild')`)
    })()
    copy.run('PRAGMA journal_mode = WAL')
  } finally {
    copy.close()
  }
}
