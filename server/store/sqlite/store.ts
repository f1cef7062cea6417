import { StampedCache } from '../change-stamp.ts'
import { ensureCliClient } from '../sql/clients.ts'
import { PURGES, txOver } from '../sql/groups.ts'
import type { ChangeSource, Store } from '../store.ts'
import type { Durability } from '../types.ts'
import { backupDatabase } from './backup.ts'
import { type Database, durabilityOf, migrateDatabase, openDatabase } from './db.ts'
import { SQLITE_EVENT_LOG } from './event-log.ts'
import { sqliteExecutors } from './transactions.ts'

/**
 * Changes seen by SQLite itself: `total_changes()` counts this connection's writes (nearly free),
 * `PRAGMA data_version` moves when another connection (another instance, an admin command) commits.
 */
function changesOf(db: Database): ChangeSource {
  const own = db.query('SELECT total_changes() AS n')
  const others = db.query('PRAGMA data_version')
  return {
    own: () => (own.get() as { n: number }).n,
    others: () => (others.get() as { data_version: number }).data_version,
  }
}

/** The store over one bun:sqlite connection. SQLite has one writer; a transaction is `BEGIN IMMEDIATE`. */
export function sqliteStore(db: Database): Store {
  const changes = changesOf(db)
  const { root } = sqliteExecutors(db)
  const backend = { events: SQLITE_EVENT_LOG, lastChanges: new StampedCache<string | null>(changes) }
  // Admin work outside the statements waits for an open transaction like any statement.
  const run = async <T>(fn: () => T): Promise<T> => {
    await root.get('SELECT 1')
    return fn()
  }
  return {
    ...txOver(root, backend),
    backend: 'sqlite',
    get durability(): Durability {
      return durabilityOf(db)
    },
    changes,
    migrate: async () => {
      const version = await run(() => migrateDatabase(db))
      await ensureCliClient(root)
      return version
    },
    purgeExpired: (kind, now, limit) => PURGES[kind](root, now, limit),
    ping: async () => {
      await root.get('SELECT 1')
    },
    backup: (file) => run(() => backupDatabase(db, file)),
    // The write-ahead log folded into the database file, so that the file alone is the database.
    checkpoint: () =>
      run(() => {
        db.run('PRAGMA wal_checkpoint(TRUNCATE)')
      }),
    close: () => run(() => db.close()),
  }
}

/** Opens (creating if missing) the SQLite database at `path` and its store. */
export function openSqliteStore(path: string, durability: Durability = 'full'): Store {
  return sqliteStore(openDatabase(path, durability))
}
