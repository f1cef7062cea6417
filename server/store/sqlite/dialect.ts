import { type Dialect, searchWords } from '../dialect.ts'

/**
 * An FTS5 MATCH string from free text: each word quoted (so FTS5 syntax in the text is inert),
 * all required, the last one as a prefix so that `wid` finds `widget`. Null when no word is left.
 */
export function ftsMatch(text: string): string | null {
  const words = searchWords(text)
  if (words.length === 0) return null
  return words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' ')
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  placeholder: () => '?',
  nativeBooleans: false,
  rowId: 'rowid',
  // One writer at a time (BEGIN IMMEDIATE): nothing else can change what a write transaction read.
  forUpdate: '',
  lockKey: null,
  always: '1',
  never: '0',
  oneOf: (column, values, params) => `${column} IN (${values.map((v) => params.add(v)).join(', ')})`,
  like: (column, pattern, params) => `${column} LIKE ${params.add(pattern)} ESCAPE '\\'`,
  // The text's own prefix where it is one (no date parsing on the path of a million rows); a week
  // goes back six days, then forward to the Monday: the Monday on or before the day.
  timeBucket: (column, bucket) =>
    bucket === 'day'
      ? `substr(${column}, 1, 10) || 'T00:00:00.000Z'`
      : bucket === 'month'
        ? `substr(${column}, 1, 7) || '-01T00:00:00.000Z'`
        : `date(${column}, '-6 days', 'weekday 1') || 'T00:00:00.000Z'`,
  // The FTS table (kept by triggers) shares the rowid of its content table.
  search: (table, text, params) => {
    const match = ftsMatch(text)
    if (match === null) return null
    return `rowid IN (SELECT rowid FROM ${table}_fts WHERE ${table}_fts MATCH ${params.add(match)})`
  },
}
