/**
 * What the planner's property tests expect of a database after a plan: every kept record there with
 * its id and values (a renamed field's under its new name), and full-text search finding them.
 */
import { expect } from 'bun:test'
import { columnOf, toColumn } from '../../server/store/columns.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { TestDatabase } from './change-databases.ts'
import { RECORDS } from './change-library.ts'

/** A stored value as text, whatever the backend gives (PostgreSQL's bigint as a string, SQLite's booleans as 0 and 1). */
const normal = (value: unknown) =>
  value === null || value === undefined
    ? null
    : typeof value === 'boolean'
      ? value
        ? '1'
        : '0'
      : String(value)

/**
 * Every record of RECORDS (made in a database of `previous`) is in its collection of `next`, with
 * its id, each kept field's value (found through renamedFrom) and each new field's default.
 */
export async function expectRecordsKept(
  db: TestDatabase,
  previous: SchemaDeclaration,
  next: SchemaDeclaration,
) {
  const before = schemaFromDeclaration(previous)
  const after = schemaFromDeclaration(next)
  for (const resource of after.resources.filter((r) => !r.service)) {
    const from =
      resource.renamedFrom && before.byName(resource.renamedFrom) ? resource.renamedFrom : resource.name
    const old = before.byName(from)
    if (!old) continue
    const rows = RECORDS[old.table] ?? []
    const stored = await db.all(`SELECT * FROM ${resource.table}`)
    expect({ [resource.name]: stored.map((s) => s.id).sort() }).toEqual({
      [resource.name]: rows.map((r) => r.id).sort(),
    })
    for (const row of rows) {
      const got = stored.find((s) => s.id === row.id)!
      for (const [name, field] of Object.entries(resource.fields)) {
        const renamed = field.declaration.renamedFrom
        const source = renamed && Object.hasOwn(old.fields, renamed) ? renamed : name
        const expected = Object.hasOwn(old.fields, source)
          ? row[columnOf(source)]
          : toColumn(field, field.default ?? null)
        expect({ [`${resource.name}.${name} of ${row.id}`]: normal(got[columnOf(name)]) }).toEqual({
          [`${resource.name}.${name} of ${row.id}`]: normal(expected),
        })
      }
    }
  }
}

/** For each searched field of `declaration`, a word of a stored value finds its record. */
export async function expectSearchFinds(db: TestDatabase, declaration: SchemaDeclaration): Promise<number> {
  const schema = schemaFromDeclaration(declaration)
  let found = 0
  for (const resource of schema.resources.filter((r) => !r.service))
    for (const field of resource.searchable) {
      const column = columnOf(field)
      const [row] = await db.all(
        `SELECT id, ${column} AS value FROM ${resource.table} WHERE ${column} IS NOT NULL`,
      )
      if (!row) continue
      const word = String(row.value).match(/[A-Za-z]+/)![0]
      const t = resource.table
      const hits =
        db.dialect === 'sqlite'
          ? await db.all(
              `SELECT ${t}.id FROM ${t} JOIN ${t}_fts ON ${t}_fts.rowid = ${t}.rowid WHERE ${t}_fts MATCH ?`,
              [`"${word}"`],
            )
          : await db.all(`SELECT id FROM ${t} WHERE search_vector @@ to_tsquery('simple', ?)`, [
              word.toLowerCase(),
            ])
      expect({ [`${resource.name} by "${word}"`]: hits.map((h) => h.id) }).toEqual({
        [`${resource.name} by "${word}"`]: expect.arrayContaining([row.id]),
      })
      found++
    }
  return found
}
