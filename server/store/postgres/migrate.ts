import type { SQL } from 'bun'
import type { Resource } from '../../../shared/resources/index.ts'
import type { Schema } from '../../../shared/schema/schema.ts'
import { newCollectionStatements } from '../../schema/new-collections.ts'
import { columnOf } from '../columns.ts'
// Embedded as text so the compiled binary carries its migrations.
import schema from './migrations/0001_schema.sql' with { type: 'text' }
import eventActors from './migrations/0002_event_actors.sql' with { type: 'text' }
import bigintIntegers from './migrations/0003_bigint_integers.sql' with { type: 'text' }
import webhooks from './migrations/0004_webhooks.sql' with { type: 'text' }
import operatorCommands from './migrations/0005_operator_commands.sql' with { type: 'text' }

/** Every migration in order; a migration is never edited once released, only followed by another. */
const FILES: string[] = [schema, eventActors, bigintIntegers, webhooks, operatorCommands]

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
const MIGRATION_LOCK = 7_461_000

/**
 * Applies pending migrations in one transaction under an advisory lock, so that of several
 * instances starting together one migrates and the others, once it commits, find nothing to do.
 * Applied versions are kept in `schema_migrations`. Returns the schema version.
 */
export async function migratePostgres(sql: SQL, schema: Schema): Promise<number> {
  const version = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)`
    const [row] = await tx`SELECT coalesce(max(version), 0) AS version FROM schema_migrations`
    let current = Number(row.version)
    for (const [i, file] of FILES.entries()) {
      if (i + 1 <= current) continue
      for (const statement of statementsOf(file)) await tx.unsafe(statement)
      await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${i + 1}, ${new Date().toISOString()})`
      current = i + 1
    }
    const tables =
      await tx`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
    const existing = new Set((tables as { table_name: string }[]).map((t) => t.table_name))
    for (const statement of newCollectionStatements(schema, 'postgres', existing)) await tx.unsafe(statement)
    return current
  })
  await checkShapePostgres(sql, schema.resources)
  return version
}

/** Fails fast when a table no longer matches its resource declaration. */
export async function checkShapePostgres(sql: SQL, resources: readonly Resource[]): Promise<void> {
  const rows = await sql`SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema()`
  const columns = new Map<string, Set<string>>()
  for (const { table_name, column_name } of rows as { table_name: string; column_name: string }[]) {
    if (!columns.has(table_name)) columns.set(table_name, new Set())
    columns.get(table_name)!.add(column_name)
  }
  for (const resource of resources) {
    const have = columns.get(resource.table) ?? new Set()
    const expected = [
      'id',
      'org_id',
      'created_at',
      'updated_at',
      ...Object.keys(resource.fields).map(columnOf),
    ]
    const missing = expected.filter((c) => !have.has(c))
    if (missing.length > 0)
      throw new Error(
        `table ${resource.table} lacks column(s) ${missing.join(', ')} declared by ${resource.name}`,
      )
  }
}
