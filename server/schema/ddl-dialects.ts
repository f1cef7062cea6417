/**
 * What differs between the backends in the storage server/schema/ddl.ts derives: column types,
 * table options and full-text search. The reasons are those of the hand-written migrations
 * (server/store/postgres/migrations/0001_schema.sql says why each PostgreSQL choice differs).
 */
export type DialectName = 'sqlite' | 'postgres'

interface DdlDialect {
  /** Text: ids, timestamps (ISO 8601, sorting as text), enums, JSON. Compared byte by byte. */
  text: string
  /** Text that compares, sorts and is unique ignoring case (an email address). */
  caselessText: string
  /** Any safe integer. */
  integer: string
  boolean: string
  /** After a CREATE TABLE's closing parenthesis. */
  tableOptions: string
  /** Statements made once per database before any table. */
  prelude: readonly string[]
  /** Full-text search over `columns` of `table`: extra columns of the table, statements after it. */
  search(table: string, columns: readonly string[]): { columns: string[]; statements: string[] }
}

/**
 * SQLite: an external-content FTS5 table over the searchable columns, sharing the table's rowid and
 * kept in step by triggers, so the index changes in the same transaction as the row.
 */
function fts5(table: string, columns: readonly string[]) {
  const fts = `${table}_fts`
  const list = columns.join(', ')
  const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ')
  const insert = `INSERT INTO ${fts} (rowid, ${list}) VALUES (new.rowid, ${values('new')});`
  const remove = `INSERT INTO ${fts} (${fts}, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')});`
  return {
    columns: [],
    statements: [
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${table}', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`,
      `CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN\n  ${insert}\nEND`,
      `CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN\n  ${remove}\nEND`,
      `CREATE TRIGGER ${fts}_update AFTER UPDATE ON ${table} BEGIN\n  ${remove}\n  ${insert}\nEND`,
    ],
  }
}

/**
 * PostgreSQL: a generated tsvector column with a GIN index, kept in the write's own statement.
 * Accents folded (api_unaccent, as remove_diacritics 2), then ASCII punctuation made a space, so a
 * word is a run of letters and digits, as for unicode61 and the query side (searchWords).
 */
function tsvector(table: string, columns: readonly string[]) {
  const text = columns.map((c) => `coalesce(${c}, '')`).join(` || ' ' || `)
  return {
    columns: [
      `search_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(api_unaccent(${text}) COLLATE "C", '[[:punct:]]', ' ', 'g'))) STORED`,
    ],
    statements: [`CREATE INDEX ${table}_search ON ${table} USING gin (search_vector)`],
  }
}

export const DIALECTS: Record<DialectName, DdlDialect> = {
  sqlite: {
    text: 'TEXT',
    caselessText: 'TEXT COLLATE NOCASE',
    integer: 'INTEGER',
    boolean: 'INTEGER',
    tableOptions: ' STRICT',
    prelude: [],
    search: fts5,
  },
  postgres: {
    // Byte order whatever the database's locale, as SQLite's BINARY.
    text: 'text COLLATE "C"',
    // Sorts as SQLite's NOCASE does: byte by byte after lowercasing.
    caselessText: 'citext COLLATE "C"',
    // SQLite's INTEGER is 64-bit.
    integer: 'bigint',
    boolean: 'boolean',
    tableOptions: '',
    prelude: [
      'CREATE EXTENSION IF NOT EXISTS unaccent',
      'CREATE EXTENSION IF NOT EXISTS citext',
      // unaccent is only STABLE; a generated column needs an IMMUTABLE expression.
      `CREATE OR REPLACE FUNCTION api_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN public.unaccent('public.unaccent'::regdictionary, $1)`,
    ],
    search: tsvector,
  },
}
