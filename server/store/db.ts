import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { migrate } from 'bun-sqlite-migrations'
import { RESOURCES, type Resource } from '../../shared/resources/index.ts'
import { ensureCliClient } from './clients.ts'
import { columnOf } from './columns.ts'
import { MIGRATIONS } from './migrations.ts'

export type { Database } from 'bun:sqlite'

/** Opens (creating if needed) the database with the pragmas the service relies on. */
export function openDatabase(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA foreign_keys = ON')
  db.run('PRAGMA synchronous = NORMAL')
  // Several instances (or the admin commands) may share one file: wait for the writer lock.
  db.run('PRAGMA busy_timeout = 5000')
  return db
}

/** Applies pending migrations, then the steps every migration run repeats. Returns the schema version. */
export function migrateDatabase(db: Database): number {
  migrate(db, MIGRATIONS)
  checkShape(db, RESOURCES)
  ensureCliClient(db)
  return (db.query('PRAGMA user_version').get() as { user_version: number }).user_version
}

/** Fails fast when a table no longer matches its resource declaration. */
export function checkShape(db: Database, resources: readonly Resource[]): void {
  for (const resource of resources) {
    const columns = new Set(
      (db.query(`PRAGMA table_info(${resource.table})`).all() as { name: string }[]).map((c) => c.name),
    )
    const expected = [
      'id',
      'org_id',
      'created_at',
      'updated_at',
      ...Object.keys(resource.fields).map(columnOf),
    ]
    const missing = expected.filter((c) => !columns.has(c))
    if (missing.length > 0) {
      throw new Error(
        `table ${resource.table} lacks column(s) ${missing.join(', ')} declared by ${resource.name}`,
      )
    }
  }
}
