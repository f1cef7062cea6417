import { Database } from 'bun:sqlite'
import { afterAll, beforeEach, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { applySchema, planSchema } from '../../server/schema/apply.ts'
import { DestructiveChangesError } from '../../server/schema/reconcile.ts'
import { openStore } from '../../server/store/open.ts'
import { newId } from '../../shared/ids.ts'
import { exampleDeclaration } from '../../shared/resources/index.ts'
import { type ResourceDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from '../support/backend.ts'
import { snapshotOf } from '../support/db-structure.ts'
import { postgresDatabase } from '../support/server.ts'

/**
 * What a start does with the declared schema (server/schema/reconcile.ts), on the suite's backend:
 * a change that loses nothing applied, logged and recorded; one that may lose data refused with the
 * database untouched; plan and apply for the commands that will run them.
 */

const NOTES: ResourceDeclaration = {
  singular: 'note',
  prefix: 'nte',
  fields: {
    title: { type: 'text', max: 200, sort: true, search: true },
    authorId: { type: 'reference', to: 'users', filter: 'eq', nullable: true },
  },
}

const example = (): Schema => schemaFromDeclaration(exampleDeclaration())
const withNotes = (): Schema =>
  schemaFromDeclaration({ resources: { ...exampleDeclaration().resources, notes: NOTES } })
/** The example without its blog: posts and comments removed. */
const withoutBlog = (): Schema => {
  const { posts: _posts, comments: _comments, ...rest } = exampleDeclaration().resources
  return schemaFromDeclaration({ resources: rest })
}

const dir = mkdtempSync(join(tmpdir(), 'api-reconcile-'))
let databases = 0
const newDatabase = async () => (onPostgres ? postgresDatabase() : join(dir, `db-${++databases}.db`))
const opened: TestSql[] = []
const testSql = (location: string): TestSql => {
  const sql = onPostgres ? postgresTestSql(location) : sqliteTestSql(new Database(location, { strict: true }))
  opened.push(sql)
  return sql
}

/** Opens the store on `location` with `schema` and migrates, as a start does; returns the log's messages. */
async function start(location: string, schema: Schema): Promise<{ msg: string; change?: string }[]> {
  const lines: string[] = []
  const store = openStore(location, schema, { logger: createLogger('info', (line) => lines.push(line)) })
  try {
    await store.migrate()
  } finally {
    await store.close()
  }
  return lines.map((line) => {
    const { msg, change } = JSON.parse(line)
    return change === undefined ? { msg } : { msg, change }
  })
}

const versions = async (sql: TestSql) =>
  (await sql.all<{ version: number }>('SELECT version FROM schema_versions ORDER BY version')).map(
    (r) => r.version,
  )

afterAll(async () => {
  for (const sql of opened) await sql.close()
  rmSync(dir, { recursive: true, force: true })
})

describe(`a start with a changed schema file (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let location: string
  let sql: TestSql

  beforeEach(async () => {
    location = await newDatabase()
    await start(location, example())
    sql = testSql(location)
  })

  it('creates a new collection in one transaction, logs it, records the schema as version 2, and the store serves it', async () => {
    expect(await start(location, withNotes())).toEqual([
      { msg: 'schema change applied', change: expect.stringMatching(/^add collection notes\b/) },
      { msg: 'schema recorded' },
    ])
    expect(await versions(sql)).toEqual([1, 2])
    const schema = withNotes()
    const notes = schema.byName('notes')!
    const store = openStore(location, schema)
    try {
      await store.migrate()
      const org = await store.orgs.create('Notes Inc')
      const now = new Date().toISOString()
      await store.records.insert(notes, {
        id: newId('nte'),
        orgId: org.id,
        now,
        values: { title: 'Crème brûlée', authorId: null },
      })
      const sort = [{ field: 'title', descending: false }]
      const found = await store.records.page(notes, org.id, { where: [], search: 'creme', sort, limit: 10 })
      expect(found.map((n) => n.title)).toEqual(['Crème brûlée'])
    } finally {
      await store.close()
    }
    expect(await versions(sql)).toEqual([1, 2])
  })

  it('refuses to remove collections: each change named with the command that applies them, the database untouched', async () => {
    const before = await snapshotOf(sql, onPostgres)
    const refused = start(location, withoutBlog())
    await expect(refused).rejects.toBeInstanceOf(DestructiveChangesError)
    const lines = String(await refused.catch((error: Error) => error.message)).split('\n')
    expect(lines[0]).toBe(
      'the schema file has changes that may lose or reject stored data; nothing was changed.',
    )
    expect(lines.slice(1, -1).sort()).toEqual([
      expect.stringMatching(/^ {2}remove collection comments\b/),
      expect.stringMatching(/^ {2}remove collection posts\b/),
    ])
    expect(lines.at(-1)).toBe(
      'See them with their SQL: api-server schema plan; apply them: api-server schema apply --allow-destructive',
    )
    expect(await snapshotOf(sql, onPostgres)).toEqual(before)
  })

  it('plans without writing, and applies destructive changes only when allowed', async () => {
    const before = await snapshotOf(sql, onPostgres)
    const { changes } = await planSchema(location, withoutBlog())
    expect(changes.map((c) => [c.description.split(/:| \(/)[0], c.destructive]).sort()).toEqual([
      ['remove collection comments', true],
      ['remove collection posts', true],
    ])
    // Comments point at posts: they go first.
    const statements = changes.flatMap((c) => c.statements)
    const dropped = (table: string) =>
      statements.findIndex((s) => new RegExp(`^DROP TABLE ${table}\\b`).test(s))
    expect(dropped('comments')).toBeGreaterThanOrEqual(0)
    expect(dropped('comments')).toBeLessThan(dropped('posts'))
    expect(await snapshotOf(sql, onPostgres)).toEqual(before)

    const applied = await applySchema(location, withoutBlog(), { allowDestructive: true })
    expect(applied.changes.map((c) => c.description)).toEqual(changes.map((c) => c.description))
    expect(await versions(sql)).toEqual([1, 2])
    expect(await start(location, withoutBlog())).toEqual([])
    expect((await planSchema(location, withoutBlog())).changes).toEqual([])
    const tables = (await snapshotOf(sql, onPostgres)) as Record<string, unknown>
    expect(Object.keys(tables).filter((t) => t.startsWith('posts') || t.startsWith('comments'))).toEqual([])
  })
})

describe.skipIf(!onPostgres)('replicas starting together with a new collection (PostgreSQL)', () => {
  it('one applies it and records one version; the others find nothing to do, and all three serve', async () => {
    const location = await newDatabase()
    await start(location, example())
    const stores = [0, 1, 2].map(() => openStore(location, withNotes()))
    try {
      await Promise.all(stores.map((store) => store.migrate()))
      const sql = testSql(location)
      expect(await versions(sql)).toEqual([1, 2])
      const org = await stores[0]!.orgs.create('Replicas')
      const notes = withNotes().byName('notes')!
      const sort = [{ field: 'createdAt', descending: false }]
      for (const store of stores)
        expect(await store.records.page(notes, org.id, { where: [], sort, limit: 5 })).toEqual([])
    } finally {
      for (const store of stores) await store.close()
    }
  })
})
