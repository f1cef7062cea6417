import type { SQL } from 'bun'
import type { SchemaDatabase, SchemaSql } from '../../schema/reconcile.ts'
import { MIGRATION_LOCK } from './migrate.ts'

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (only in statements given parameters). */
const numbered = (text: string) => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

function over(sql: Pick<SQL, 'unsafe'>): SchemaSql {
  const unsafe = (text: string, params: unknown[]) =>
    params.length === 0 ? sql.unsafe(text) : sql.unsafe(numbered(text), params)
  return {
    all: async <T>(text: string, params: unknown[] = []) => [...(await unsafe(text, params))] as T[],
    run: async (text, params = []) => {
      await unsafe(text, params)
    },
  }
}

/**
 * A PostgreSQL database for server/schema/reconcile.ts. Its transaction holds the migrations'
 * advisory lock: of several replicas starting together one applies the schema, and the others,
 * once it commits, find nothing to do. DDL is transactional here, so a failed change leaves nothing.
 */
export function postgresSchemaDatabase(sql: SQL): SchemaDatabase {
  return {
    dialect: 'postgres',
    read: (fn) => fn(over(sql)),
    transaction: (fn) =>
      sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        return fn(over(tx))
      }),
    hasTable: async (on, table) =>
      (
        await on.all(
          'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?',
          [table],
        )
      ).length > 0,
  }
}
