/**
 * A declared resource's storage taken apart for comparing: the statements server/schema/ddl.ts
 * generates, sorted into the table, its indexes (by name) and its full-text search, so that the
 * planner (server/schema/changes.ts) makes exactly what a fresh database made from the next
 * schema has, and only what differs.
 */
import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { columnOf } from '../store/columns.ts'
import { schemaFor } from './ddl.ts'
import type { DialectName } from './ddl-dialects.ts'

export interface Parts {
  table: string
  /** The CREATE TABLE statement. */
  create: string
  /** Every index statement by its name, with the columns it covers. */
  indexes: Map<string, { statement: string; columns: string[] }>
  /** SQLite: the FTS table and its triggers; PostgreSQL: the search column's GIN index. */
  search: string[]
  /** The searched columns, in order. */
  searched: string[]
}

const INDEX = /^CREATE (?:UNIQUE )?INDEX (\S+) ON \S+ (?:USING \S+ )?\(([^)]*)\)/

/** `resource`'s generated storage in `dialect`, taken apart. */
export function partsOf(resource: Resource, dialect: DialectName, schema: Schema): Parts {
  const [create, ...rest] = schemaFor(resource, dialect, schema)
  const parts: Parts = {
    table: resource.table,
    create: create!,
    indexes: new Map(),
    search: [],
    searched: Object.entries(resource.fields)
      .filter(([, f]) => f.search)
      .map(([name]) => columnOf(name)),
  }
  for (const statement of rest) {
    const index = INDEX.exec(statement)
    if (index && !statement.includes('USING gin'))
      parts.indexes.set(index[1]!, {
        statement,
        columns: index[2]!.split(',').map((c) => c.trim()),
      })
    else parts.search.push(statement)
  }
  return parts
}

/** The statements that remove `parts`' search, whatever of it is there (so several changes may run them). */
export function dropSearch(parts: Pick<Parts, 'table'>, dialect: DialectName): string[] {
  const t = parts.table
  return dialect === 'sqlite'
    ? [
        `DROP TRIGGER IF EXISTS ${t}_fts_insert`,
        `DROP TRIGGER IF EXISTS ${t}_fts_delete`,
        `DROP TRIGGER IF EXISTS ${t}_fts_update`,
        `DROP TABLE IF EXISTS ${t}_fts`,
      ]
    : [`DROP INDEX IF EXISTS ${t}_search`, `ALTER TABLE ${t} DROP COLUMN IF EXISTS search_vector`]
}

/**
 * The statements that make `parts`' search on a table that has none: SQLite's FTS table and
 * triggers, then the index filled from the rows already there; PostgreSQL's generated column
 * (computed for every row as it is added) and its GIN index.
 */
export function makeSearch(parts: Parts, dialect: DialectName): string[] {
  if (parts.searched.length === 0) return []
  if (dialect === 'sqlite')
    return [...parts.search, `INSERT INTO ${parts.table}_fts(${parts.table}_fts) VALUES('rebuild')`]
  return [`ALTER TABLE ${parts.table} ADD COLUMN ${searchColumnOf(parts)}`, ...parts.search]
}

/** PostgreSQL's `search_vector ... GENERATED ...` column definition, as the CREATE TABLE has it. */
function searchColumnOf(parts: Parts): string {
  const line = parts.create.split('\n').find((l) => l.trim().startsWith('search_vector '))
  if (!line) throw new Error(`${parts.table}: no search column`)
  return line.trim().replace(/,$/, '')
}

/** A column's definition as the CREATE TABLE has it (`subtitle TEXT`, `pages INTEGER NOT NULL`). */
export function columnDefinition(parts: Parts, column: string): string {
  const line = parts.create.split('\n').find((l) => l.trim().startsWith(`${column} `))
  if (!line) throw new Error(`${parts.table}: no column ${column}`)
  return line.trim().replace(/,$/, '')
}

/** The column's SQL type alone: the definition without NOT NULL and REFERENCES. */
export function columnType(parts: Parts, column: string): string {
  return columnDefinition(parts, column)
    .slice(column.length + 1)
    .replace(/ NOT NULL| REFERENCES .*$/g, '')
}

/** The table a column's foreign key points at, if any. */
export function referencedTable(parts: Parts, column: string): string | undefined {
  return / REFERENCES (\w+)\(id\)/.exec(columnDefinition(parts, column))?.[1]
}

/** A field's default as an SQL literal of `dialect` (json and list as their JSON text). */
export function literalOf(field: Field, dialect: DialectName): string {
  const value = field.default
  if (field.kind === 'boolean') return dialect === 'postgres' ? String(value) : value ? '1' : '0'
  if (field.kind === 'integer') return String(value)
  const text = field.kind === 'json' ? JSON.stringify(value) : String(value)
  return `'${text.replaceAll("'", "''")}'`
}

/** An SQL string literal. */
export const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * The expression that converts `column` of the previous kind to the next one, in a rebuild's
 * SELECT (SQLite) or an ALTER COLUMN ... USING (PostgreSQL). A value that does not convert makes
 * the statement fail, never a silent null or zero: SQLite's STRICT tables refuse a text that is
 * not an integer in an INTEGER column (a CAST would make it 0), and a boolean's CASE answers such
 * a text where no true or false fits.
 */
export function converted(column: string, from: Field, to: Field, dialect: DialectName): string {
  const stored = (f: Field) => (f.kind === 'integer' || f.kind === 'boolean' ? f.kind : 'text')
  const [a, b] = [stored(from), stored(to)]
  const pg = dialect === 'postgres'
  const refused = (what: string) =>
    pg ? `('not ${what}: ' || ${column})::boolean` : `'not ${what}: ' || ${column}`
  if (a === b) return column
  if (b === 'text') {
    if (a === 'boolean')
      return pg
        ? `CASE ${column} WHEN true THEN 'true' WHEN false THEN 'false' END`
        : `CASE ${column} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`
    return pg ? `${column}::text` : `CAST(${column} AS TEXT)`
  }
  if (b === 'integer') {
    if (a === 'boolean') return pg ? `${column}::int::bigint` : column
    // Through text: an email address (citext) has no cast of its own to bigint.
    return pg ? `${column}::text::bigint` : column
  }
  const [yes, no] = pg ? ['true', 'false'] : ['1', '0']
  const [t, f] = a === 'integer' ? ['1', '0'] : ["'true'", "'false'"]
  return `CASE ${column} WHEN ${t} THEN ${yes} WHEN ${f} THEN ${no} ELSE ${refused('a boolean')} END`
}
