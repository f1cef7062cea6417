import { type Dialect, searchWords } from '../dialect.ts'

/**
 * A `to_tsquery('simple', ...)` string from free text: every word required, the last one as a
 * prefix (`wid` finds `widget`), as the SQLite dialect's MATCH does. Words hold only letters,
 * digits and underscores, so no tsquery syntax reaches the query. Null when no word is left.
 */
export function tsQuery(text: string): string | null {
  const words = searchWords(text)
  if (words.length === 0) return null
  return words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ')
}

export const POSTGRES: Dialect = {
  name: 'postgres',
  placeholder: (n) => `$${n}`,
  nativeBooleans: true,
  rowId: 'ctid',
  forUpdate: ' FOR UPDATE',
  lockKey: 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0))',
  always: 'TRUE',
  never: 'FALSE',
  // One array parameter: the statement's text is the same whatever the list's length, so one
  // prepared statement serves every list.
  oneOf: (column, values, params) => `${column} = ANY(${params.add(values)})`,
  // SQLite's LIKE ignores ASCII case; ILIKE does so in PostgreSQL.
  like: (column, pattern, params) => `${column} ILIKE ${params.add(pattern)} ESCAPE '\\'`,
  // Timestamps are ISO text in UTC, as on SQLite: a day and a month are its prefix; date_trunc's
  // week starts on Monday (ISO 8601).
  timeBucket: (column, bucket) =>
    bucket === 'day'
      ? `substr(${column}, 1, 10) || 'T00:00:00.000Z'`
      : bucket === 'month'
        ? `substr(${column}, 1, 7) || '-01T00:00:00.000Z'`
        : `to_char(date_trunc('week', (${column})::timestamptz AT TIME ZONE 'UTC'), 'YYYY-MM-DD') || 'T00:00:00.000Z'`,
  // `search_vector` is a generated tsvector column with a GIN index (the PostgreSQL migrations);
  // accents are folded on both sides, as SQLite's remove_diacritics does.
  search: (_table, text, params) => {
    const query = tsQuery(text)
    if (query === null) return null
    return `search_vector @@ to_tsquery('simple', api_unaccent(${params.add(query)}))`
  },
}
