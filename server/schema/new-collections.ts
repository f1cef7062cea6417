/**
 * The tables of declared collections a database does not have yet (a schema file's new
 * collections), made at start in the migrating transaction: a new collection loses nothing, so it
 * is applied without asking (contract, "Your own resources"). Changes to existing tables are the
 * schema changes' (`schema plan`, `schema apply`).
 */
import type { Schema } from '../../shared/schema/schema.ts'
import { schemaFor } from './ddl.ts'
import { DIALECTS, type DialectName } from './ddl-dialects.ts'

/** The statements that create every declared collection of `schema` whose table is not in `existing`. */
export function newCollectionStatements(
  schema: Schema,
  dialect: DialectName,
  existing: ReadonlySet<string>,
): string[] {
  const missing = schema.resources.filter((r) => !r.service && !existing.has(r.table))
  if (missing.length === 0) return []
  return [...DIALECTS[dialect].prelude, ...missing.flatMap((r) => schemaFor(r, dialect, schema))]
}
