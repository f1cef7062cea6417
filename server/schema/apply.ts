/**
 * What `api-server schema plan` and `schema apply --allow-destructive` run: the database a `--db`
 * value names, brought to the service's own migrations, then compared with the declared schema.
 */
import { SQL } from 'bun'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Logger } from '../ops/logger.ts'
import { isPostgresUrl } from '../store/open.ts'
import { migrateServicePostgres } from '../store/postgres/migrate.ts'
import { postgresSchemaDatabase } from '../store/postgres/schema-database.ts'
import { migrateService, openDatabase } from '../store/sqlite/db.ts'
import { sqliteSchemaDatabase } from '../store/sqlite/schema-database.ts'
import type { SchemaChange } from './change.ts'
import { pendingChanges, reconcile, recordedSchema, type SchemaDatabase } from './reconcile.ts'

/** Runs `fn` on the database at `location` after the service's own migrations, then closes it. */
async function withSchemaDatabase<T>(location: string, fn: (db: SchemaDatabase) => Promise<T>): Promise<T> {
  if (isPostgresUrl(location)) {
    const sql = new SQL(location, { max: 1 })
    try {
      await migrateServicePostgres(sql)
      return await fn(postgresSchemaDatabase(sql))
    } finally {
      await sql.close()
    }
  }
  const db = openDatabase(location)
  try {
    migrateService(db)
    return await fn(sqliteSchemaDatabase(db))
  } finally {
    db.close()
  }
}

/** Every change between the database at `location` and `schema`, destructive or not, with its SQL; applies none. */
export function planSchema(location: string, schema: Schema): Promise<{ changes: SchemaChange[] }> {
  return withSchemaDatabase(location, async (db) => ({ changes: await pendingChanges(db, schema) }))
}

/**
 * Applies every change between the database at `location` and `schema` in one transaction, the
 * destructive ones too when `allowDestructive` (else they are refused with DestructiveChangesError,
 * as at start), and records `schema`. Returns the changes applied.
 */
export function applySchema(
  location: string,
  schema: Schema,
  options: { allowDestructive: boolean; logger?: Logger },
): Promise<{ changes: SchemaChange[] }> {
  return withSchemaDatabase(location, async (db) => ({ changes: await reconcile(db, schema, options) }))
}

/** The schema the database at `location` holds: its version in `schema_versions` and its hash. */
export function schemaVersionAt(location: string): Promise<{ version: number; hash: string } | null> {
  return withSchemaDatabase(location, (db) => db.read(recordedSchema))
}
