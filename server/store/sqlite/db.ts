import { Database } from 'bun:sqlite'
import { migrate } from 'bun-sqlite-migrations'
import type { Schema } from '../../../shared/schema/schema.ts'
import { type ReconcileOptions, reconcile } from '../../schema/reconcile.ts'
import { DatabaseFileError, type Durability } from '../types.ts'
import { codeOf, prepareDatabaseFile } from './db-file.ts'
import { MIGRATIONS } from './migrations.ts'
import { sqliteSchemaDatabase } from './schema-database.ts'

export type { Database } from 'bun:sqlite'

/** The durability a connection runs with, read from SQLite itself (synchronous: 2 FULL, 1 NORMAL). */
export function durabilityOf(db: Database): Durability {
  return (db.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous >= 2 ? 'full' : 'fast'
}

/**
 * Opens the database with the pragmas the service relies on. A missing file is created (mode
 * 0600) in a directory that must exist; a path SQLite cannot use fails with a DatabaseFileError
 * naming it.
 */
export function openDatabase(path: string, durability: Durability = 'full'): Database {
  if (path !== ':memory:') prepareDatabaseFile(path)
  let db: Database | undefined
  try {
    db = new Database(path, { create: true, strict: true })
    db.run('PRAGMA journal_mode = WAL')
    db.run('PRAGMA foreign_keys = ON')
    // In WAL mode FULL syncs the log on every commit; NORMAL only at checkpoints.
    db.run(durability === 'full' ? 'PRAGMA synchronous = FULL' : 'PRAGMA synchronous = NORMAL')
    // Several instances (or the admin commands) may share one file: wait for the writer lock.
    db.run('PRAGMA busy_timeout = 5000')
    // Temporary storage in memory. A write runs in a savepoint (an idempotent create: the record
    // and its event, rolled back alone if the handler fails), which journals every page it changes
    // to a statement journal; past 64 KiB (a create of an indexed table touches more) SQLite spills
    // that journal to a new temporary file, which cost a create about 100 µs. What else goes there
    // stays small: the SQL a client may send has no GROUP BY, DISTINCT or compound SELECT, and
    // its ORDER BY comes with a LIMIT, so SQLite keeps only that many rows to sort.
    db.run('PRAGMA temp_store = MEMORY')
    return db
  } catch (error) {
    db?.close()
    if (codeOf(error) === 'SQLITE_NOTADB') throw new DatabaseFileError(`${path} is not a SQLite database`)
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    throw new DatabaseFileError(`cannot open the database ${path}: ${reason}`)
  }
}

/** Applies the service's pending migrations; returns its schema version. */
export function migrateService(db: Database): number {
  migrate(db, MIGRATIONS)
  return (db.query('PRAGMA user_version').get() as { user_version: number }).user_version
}

/**
 * The service's migrations, then the declared collections' tables made to follow `schema`
 * (server/schema/reconcile.ts); returns the service's schema version. The store's `migrate` then
 * repeats what every run does (the CLI's client).
 */
export async function migrateDatabase(
  db: Database,
  schema: Schema,
  options: ReconcileOptions = {},
): Promise<number> {
  const version = migrateService(db)
  await reconcile(sqliteSchemaDatabase(db), schema, options)
  return version
}
