import type { SQL } from 'bun'
import type { Schema } from '../../../shared/schema/schema.ts'
import { type ReconcileOptions, reconcile } from '../../schema/reconcile.ts'
import { sqlFilesIn } from '../sql-files.ts' with { type: 'macro' }
import { postgresSchemaDatabase } from './schema-database.ts'

/**
 * Every migration of the service's own tables (migrations/*.sql), in the order of their names; a
 * file's version is its position. A migration is never edited once released, only followed by
 * another. The declared collections' tables are not here: server/schema/ derives them.
 */
const FILES = sqlFilesIn('postgres/migrations')

/**
 * The statements of a migration file: separated by blank lines; a line starting with `--` is a
 * comment and goes with its line break, so that a comment inside a statement does not split it.
 */
export const statementsOf = (text: string): string[] =>
  text
    .replace(/^[ \t]*--.*(?:\r?\n|$)/gm, '')
    .split(/\r?\n[ \t]*\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean)

/** Taken by every migrating instance: replicas starting at once migrate one after the other. */
export const MIGRATION_LOCK = 7_461_000

/**
 * Applies the service's pending migrations in one transaction under an advisory lock, so that of
 * several instances starting together one migrates and the others, once it commits, find nothing
 * to do. Applied versions are kept in `schema_migrations`. Returns the service's schema version.
 */
export async function migrateServicePostgres(sql: SQL): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)`
    const [row] = await tx`SELECT coalesce(max(version), 0) AS version FROM schema_migrations`
    let current = Number(row.version)
    for (const [i, file] of FILES.entries()) {
      if (i + 1 <= current) continue
      for (const statement of statementsOf(file.text)) await tx.unsafe(statement)
      await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${i + 1}, ${new Date().toISOString()})`
      current = i + 1
    }
    return current
  })
}

/**
 * The service's migrations, then the declared collections' tables made to follow `schema`
 * (server/schema/reconcile.ts). Returns the service's schema version.
 */
export async function migratePostgres(
  sql: SQL,
  schema: Schema,
  options: ReconcileOptions = {},
): Promise<number> {
  const version = await migrateServicePostgres(sql)
  await reconcile(postgresSchemaDatabase(sql), schema, options)
  return version
}
