import { expect } from 'bun:test'
import type { Database } from '../../server/store/sqlite/db.ts'

/** What the store's statements are checked for: their text, and SQLite's plan for them. */

export interface Statement {
  sql: string
  params: unknown[]
}

/** The database as the store sees it, recording the text and parameters of every statement run. */
export function spied(target: Database): { db: Database; statements: Statement[] } {
  const statements: Statement[] = []
  const run = new Set<PropertyKey>(['all', 'get', 'run', 'values', 'iterate'])
  const query = (sql: string) =>
    new Proxy(target.query(sql), {
      get(statement, name) {
        const value = Reflect.get(statement, name, statement)
        if (typeof value !== 'function') return value
        return (...params: unknown[]) => {
          if (run.has(name)) statements.push({ sql, params })
          return value.apply(statement, params)
        }
      },
    })
  const proxy = new Proxy(target, {
    get(database, name) {
      if (name === 'query') return query
      const value = Reflect.get(database, name, database)
      return typeof value === 'function' ? value.bind(database) : value
    },
  })
  return { db: proxy, statements }
}

const ORG_SCAN = /^SCAN (?!\w+_fts VIRTUAL TABLE)/

/** Every table access is a SEARCH or goes through an index; FTS5 tables answer MATCH from their own index. */
export function expectIndexed({ sql, plan }: { sql: string; plan: string[] }) {
  const unindexed = plan.filter((d) => ORG_SCAN.test(d) && !/USING (COVERING )?INDEX/.test(d))
  expect({ sql, unindexed }).toEqual({ sql, unindexed: [] })
}
