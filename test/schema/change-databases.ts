/**
 * Databases for the planner's tests, on either backend: one made for a declaration (the service's
 * migrations, then each declared collection's generated storage), the planned changes applied as
 * the start applies them (one transaction; on SQLite with foreign keys off around it and checked
 * before the commit), and what a database says of its structure, normalized so that two databases
 * holding one schema compare equal.
 */
import { expect } from 'bun:test'
import type { SQL } from 'bun'
import type { SchemaChange } from '../../server/schema/change.ts'
import { schemaFor } from '../../server/schema/ddl.ts'
import type { DialectName } from '../../server/schema/ddl-dialects.ts'
import { migratePostgres } from '../../server/store/postgres/migrate.ts'
import { type Database, migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'

/** One database of either backend, as the tests use it. */
export interface TestDatabase {
  dialect: DialectName
  run(statement: string, params?: unknown[]): Promise<void>
  all(query: string, params?: unknown[]): Promise<Record<string, unknown>[]>
  /** Runs `changes` as the start does: all or nothing. */
  apply(changes: SchemaChange[]): Promise<void>
  structure(): Promise<Record<string, string[]>>
  close(): Promise<void>
}

const SERVICE_ONLY = schemaFromDeclaration({ resources: {} })

/** The statements that make the declared collections of `declaration`, after the service's tables. */
const storageOf = (declaration: SchemaDeclaration, dialect: DialectName) => {
  const schema = schemaFromDeclaration(declaration)
  return schema.resources.filter((r) => !r.service).flatMap((r) => schemaFor(r, dialect, schema))
}

/** A SQLite database (in memory) made for `declaration`. */
export function sqliteFor(declaration: SchemaDeclaration): TestDatabase {
  const db = openDatabase(':memory:')
  migrateDatabase(db, SERVICE_ONLY)
  for (const statement of storageOf(declaration, 'sqlite')) db.run(statement)
  return sqliteDatabase(db)
}

function sqliteDatabase(db: Database): TestDatabase {
  const run = async (statement: string, params: unknown[] = []) => {
    db.query(statement).run(...(params as never[]))
  }
  const all = async (query: string, params: unknown[] = []) =>
    db.query(query).all(...(params as never[])) as Record<string, unknown>[]
  return {
    dialect: 'sqlite',
    run,
    all,
    async apply(changes) {
      db.run('PRAGMA foreign_keys = OFF')
      try {
        db.transaction(() => {
          for (const statement of changes.flatMap((c) => c.statements)) db.run(statement)
          const broken = db.query('PRAGMA foreign_key_check').all()
          if (broken.length > 0) throw new Error(`foreign keys broken: ${JSON.stringify(broken)}`)
        })()
      } finally {
        db.run('PRAGMA foreign_keys = ON')
      }
    },
    async structure() {
      return sqliteStructure(db)
    },
    async close() {
      db.close()
    },
  }
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').replaceAll('"', '').trim()

/**
 * Every table's columns (name, type, NOCASE, NOT NULL, key) and foreign keys, STRICT or not, and
 * every other object's SQL. Column order and DEFAULT are left out: a column added later comes last,
 * and one added with a default keeps it (server/schema/change-fields.ts says why); the service
 * names every column it writes, so neither is ever read.
 */
function sqliteStructure(db: Database): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const objects = db
    .query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[]
  for (const o of objects) {
    if (o.type !== 'table' || o.sql?.startsWith('CREATE VIRTUAL')) {
      out[`${o.type} ${o.name}`] = [`on ${o.tbl_name}`, squeeze(o.sql ?? '')]
      continue
    }
    const [listed] = db.query(`PRAGMA table_list(${o.name})`).all() as { strict: number }[]
    const columns = (
      db.query(`PRAGMA table_info(${o.name})`).all() as {
        name: string
        type: string
        notnull: number
        pk: number
      }[]
    ).map((c) => {
      const caseless = new RegExp(`\\b${c.name} TEXT COLLATE NOCASE`).test(o.sql ?? '')
      return `${c.name} ${c.type}${caseless ? ' NOCASE' : ''}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ' KEY' : ''}`
    })
    const keys = (
      db.query(`PRAGMA foreign_key_list(${o.name})`).all() as { table: string; from: string; to: string }[]
    ).map((k) => `${k.from} -> ${k.table}(${k.to})`)
    out[`table ${o.name}`] = [listed?.strict ? 'STRICT' : '', ...columns.sort(), ...keys.sort()]
  }
  return out
}

/** A PostgreSQL database made for `declaration`, on a fresh database of `server`. */
export async function postgresFor(sql: SQL, declaration: SchemaDeclaration): Promise<TestDatabase> {
  await migratePostgres(sql, SERVICE_ONLY)
  for (const statement of storageOf(declaration, 'postgres')) await sql.unsafe(statement)
  const numbered = (query: string) => {
    let n = 0
    return query.replace(/\?/g, () => `$${++n}`)
  }
  return {
    dialect: 'postgres',
    async run(statement, params = []) {
      await sql.unsafe(numbered(statement), params)
    },
    async all(query, params = []) {
      return (await sql.unsafe(numbered(query), params)) as Record<string, unknown>[]
    },
    async apply(changes) {
      await sql.begin(async (tx) => {
        for (const statement of changes.flatMap((c) => c.statements)) await tx.unsafe(statement)
      })
    },
    structure: () => postgresStructure(sql),
    close: () => sql.close(),
  }
}

/**
 * Every table's columns (type, collation, NOT NULL, generated expression), indexes and constraints,
 * by name. DEFAULT is left out as on SQLite: a column added with a default keeps it, for replicas
 * still on the previous schema.
 */
async function postgresStructure(sql: SQL): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  const add = (key: string, line: string) => {
    out[key] ??= []
    out[key].push(line)
  }
  const columns = (await sql`
    SELECT table_name, column_name, data_type, udt_name, collation_name, is_nullable, generation_expression
    FROM information_schema.columns WHERE table_schema = current_schema()`) as Record<string, string | null>[]
  for (const c of columns)
    add(
      `table ${c.table_name}`,
      [
        c.column_name,
        c.data_type === 'USER-DEFINED' ? c.udt_name : c.data_type,
        c.collation_name ?? '',
        c.is_nullable,
        c.generation_expression ?? '',
      ].join(' '),
    )
  const indexes =
    (await sql`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()`) as Record<
      string,
      string
    >[]
  for (const i of indexes) add(`index ${i.indexname}`, `on ${i.tablename}: ${i.indexdef}`)
  const constraints = (await sql`
    SELECT c.conname, c.conrelid::regclass::text AS table_name, pg_get_constraintdef(c.oid) AS def
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
    WHERE n.nspname = current_schema()`) as Record<string, string>[]
  for (const c of constraints) add(`constraint ${c.conname}`, `on ${c.table_name}: ${c.def}`)
  for (const lines of Object.values(out)) lines.sort()
  return out
}

/** Expects two structures equal, naming the first object that differs. */
export function expectSameStructure(actual: Record<string, string[]>, expected: Record<string, string[]>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort())
  for (const key of Object.keys(expected)) expect({ [key]: actual[key] }).toEqual({ [key]: expected[key] })
}
