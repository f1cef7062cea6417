import { SQL } from 'bun'
import { migrate } from 'bun-sqlite-migrations'
import { schemaFor, statementsFor } from '../../server/schema/ddl.ts'
import { migratePostgres } from '../../server/store/postgres/migrate.ts'
import { openDatabase } from '../../server/store/sqlite/db.ts'
import { MIGRATIONS } from '../../server/store/sqlite/migrations.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { onPostgres } from './backend.ts'

/**
 * The tables of `schema`'s declared collections that the service's migrations do not make, made in
 * the database at `location` before a test server starts on it. Until the server makes a declared
 * collection's table itself at start (the schema-file issue, step 2), this is how a test serves a
 * schema other than the built-in example; the statements are the server's own generator's
 * (server/schema/ddl.ts), so the tables are those the server will make.
 */
export async function createDeclaredTables(location: string, schema: Schema): Promise<void> {
  if (onPostgres) await createOnPostgres(location, schema)
  else createOnSqlite(location, schema)
}

function createOnSqlite(location: string, schema: Schema): void {
  const db = openDatabase(location)
  try {
    migrate(db, MIGRATIONS)
    const exists = (table: string) =>
      db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== null
    db.transaction(() => {
      for (const resource of schema.resources)
        if (!exists(resource.table))
          for (const statement of schemaFor(resource, 'sqlite', schema)) db.run(statement)
    })()
  } finally {
    db.close()
  }
}

async function createOnPostgres(location: string, schema: Schema): Promise<void> {
  const sql = new SQL(location, { max: 1 })
  try {
    // The migrations make the example's tables, which they check against the example.
    await migratePostgres(sql, exampleSchema())
    await sql.begin(async (tx) => {
      const missing = []
      for (const resource of schema.resources) {
        const [row] = await tx`SELECT to_regclass(${resource.table}) IS NOT NULL AS present`
        if (!row.present) missing.push(resource)
      }
      if (missing.length === 0) return
      const prelude = statementsFor({ ...schema, resources: [] }, 'postgres')
      for (const statement of [...prelude, ...missing.flatMap((r) => schemaFor(r, 'postgres', schema))])
        await tx.unsafe(statement)
    })
  } finally {
    await sql.close()
  }
}
