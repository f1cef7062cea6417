import type { SQLQueryBindings } from 'bun:sqlite'
import type { SchemaDatabase, SchemaSql } from '../../schema/reconcile.ts'
import type { Database } from './db.ts'

/**
 * A SQLite database for server/schema/reconcile.ts. Its transaction is `BEGIN IMMEDIATE` (the
 * write lock, which also makes other instances wait) with foreign keys off, as a table rebuild
 * needs (https://www.sqlite.org/lang_altertable.html#otheralter), and checked before the commit.
 */
export function sqliteSchemaDatabase(db: Database): SchemaDatabase {
  const sql: SchemaSql = {
    all: async <T>(text: string, params: unknown[] = []) =>
      db.prepare(text).all(...(params as SQLQueryBindings[])) as T[],
    run: async (text, params = []) => {
      db.run(text, params as SQLQueryBindings[])
    },
  }
  return {
    dialect: 'sqlite',
    read: (fn) => fn(sql),
    transaction: async (fn) => {
      // Only outside a transaction does this pragma take effect.
      db.run('PRAGMA foreign_keys = OFF')
      try {
        db.run('BEGIN IMMEDIATE')
        try {
          const result = await fn(sql)
          const broken = db.query('PRAGMA foreign_key_check').all() as { table: string; parent: string }[]
          if (broken.length > 0) {
            const first = broken[0]!
            throw new Error(
              `the schema change would leave ${broken.length} row(s) pointing at no record (${first.table} -> ${first.parent})`,
            )
          }
          db.run('COMMIT')
          return result
        } catch (error) {
          db.run('ROLLBACK')
          throw error
        }
      } finally {
        db.run('PRAGMA foreign_keys = ON')
      }
    },
    hasTable: async (on, table) =>
      (await on.all("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table])).length > 0,
  }
}
