import { canonicalJson } from '../../shared/canonical-json.ts'
import type { TestSql } from './backend.ts'

/**
 * What a database holds and how it is built, read through its own catalogue, so that two databases
 * (an upgraded one and a fresh one; one before and after a start) can be compared.
 */

/** Every base table of the database (SQLite: FTS tables and their shadow tables too). */
async function tablesOf(sql: TestSql, postgres: boolean): Promise<string[]> {
  const rows = postgres
    ? await sql.all<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    : await sql.all<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
  return rows.map((r) => r.name).sort()
}

/** Every row of every table, each as key-sorted JSON, sorted: equal snapshots hold the same rows. */
export async function snapshotOf(sql: TestSql, postgres: boolean): Promise<Record<string, string[]>> {
  const snapshot: Record<string, string[]> = {}
  for (const table of await tablesOf(sql, postgres)) {
    const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM ${table}`)
    snapshot[table] = rows
      .map((row) =>
        canonicalJson(
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [
              k,
              v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
            ]),
          ),
        ),
      )
      .sort()
  }
  return snapshot
}

const squeeze = (text: string | null) => (text ?? '').replace(/"/g, '').replace(/\s+/g, ' ').trim()

/** Whether a catalogue entry belongs to `tables` (a table, its FTS table and its shadow tables). */
const belongs = (name: string, tables: readonly string[]) =>
  tables.some((t) => name === t || name.startsWith(`${t}_fts`))

/**
 * How `tables` are built. SQLite: every object of sqlite_master on them (tables, indexes, triggers,
 * FTS tables) with its SQL, white space and quotes squeezed. PostgreSQL: columns (type, collation,
 * nullability, default, generation), indexes as pg_indexes gives them, constraints with their
 * definitions.
 */
export async function structureOf(
  sql: TestSql,
  postgres: boolean,
  tables: readonly string[],
): Promise<string[]> {
  if (!postgres) {
    const rows = await sql.all<{ type: string; name: string; tbl_name: string; sql: string | null }>(
      'SELECT type, name, tbl_name, sql FROM sqlite_master',
    )
    return rows
      .filter((r) => belongs(r.tbl_name, tables))
      .map((r) => `${r.type} ${r.name} on ${r.tbl_name}: ${squeeze(r.sql)}`)
      .sort()
  }
  const inList = tables.map((t) => `'${t}'`).join(', ')
  const columns = await sql.all<Record<string, string | null>>(
    `SELECT table_name, column_name, ordinal_position, data_type, udt_name, collation_name, is_nullable,
       column_default, is_generated, generation_expression
     FROM information_schema.columns WHERE table_schema = current_schema() AND table_name IN (${inList})`,
  )
  const indexes = await sql.all<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN (${inList})`,
  )
  const constraints = await sql.all<{ table_name: string; conname: string; def: string }>(
    `SELECT c.conrelid::regclass::text AS table_name, c.conname, pg_get_constraintdef(c.oid) AS def
     FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace
       AND c.conrelid::regclass::text IN (${inList})`,
  )
  return [
    ...columns.map((c) => `column ${canonicalJson(c)}`),
    ...indexes.map((i) => `index ${i.indexname}: ${i.indexdef}`),
    ...constraints.map((c) => `constraint ${c.table_name}.${c.conname}: ${c.def}`),
  ].sort()
}
