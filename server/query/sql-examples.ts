/**
 * Bodies in the client's SQL dialect (docs/query.md, "The SQL subset") that the OpenAPI documents
 * show as examples of an application/sql QUERY. Kept with the dialect: nothing here runs.
 */
export const sqlExample = (table: string) =>
  `SELECT * FROM ${table} WHERE created_at >= '2026-01-01' ORDER BY created_at DESC LIMIT 10`

/** On `/search`, the statement names the collection it reads. */
export const SEARCH_SQL_EXAMPLE =
  "SELECT * FROM orders WHERE status = 'paid' ORDER BY created_at DESC LIMIT 10"
