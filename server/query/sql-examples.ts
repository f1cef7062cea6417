/**
 * The bodies the OpenAPI documents show as examples of a QUERY, and the filters error hints
 * suggest, made from the schema in force (docs/query.md): a collection with an enum filter and
 * that enum's first value, so a server of any schema shows examples that work against it. Kept
 * with the dialects: nothing here runs.
 */
import { snakeCase } from '../../shared/resources/define.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'

/** An equality a collection filters on, with a value it holds: `status` and `pending`. */
interface Equality {
  resource: Resource
  field: string
  value: string
}

/** The first enum field `resource` filters on by equality, with its first value. */
function equalityOf(resource: Resource): Equality | undefined {
  for (const [field, declared] of Object.entries(resource.fields))
    if (declared.values?.[0] !== undefined && declared.filter !== undefined && declared.filter !== 'range')
      return { resource, field, value: declared.values[0] }
  return undefined
}

/**
 * The example a search shows: the first declared collection with an enum filter, else the first
 * of the service's own with one (`users`' role), else none.
 */
function searchEquality(schema: Schema): Equality | undefined {
  const ordered = [
    ...schema.resources.filter((r) => !r.service),
    ...schema.resources.filter((r) => r.service),
  ]
  for (const resource of ordered) {
    const found = equalityOf(resource)
    if (found) return found
  }
  return undefined
}

/** A JSONPath segment naming a collection: `$.books`, `$['line-items']` (RFC 9535 §2.5.1.1). */
const jsonPathMember = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `.${name}` : `['${name}']`)

/** A collection's application/sql example. */
export const sqlExample = (table: string) =>
  `SELECT * FROM ${table} WHERE created_at >= '2026-01-01' ORDER BY created_at DESC LIMIT 10`

/** A JSONPath filter on `resource`'s records for a hint: on its enum, else on its creation time. */
export function jsonPathFilter(resource: Resource): string {
  const equality = equalityOf(resource)
  return equality ? `?@.${equality.field} == '${equality.value}'` : "?@.createdAt >= '2026-01-01'"
}

/** `/search`'s examples: a JSON body with a filter, an SQL statement and a JSONPath naming the collection. */
export function searchExamples(schema: Schema): {
  json: Record<string, unknown>
  sql: string
  jsonPath: string
} {
  const equality = searchEquality(schema)
  if (!equality) {
    const first = schema.resources[0]!
    return {
      json: { collection: first.name, filter: "created_at >= '2026-01-01'", limit: 10 },
      sql: sqlExample(first.table),
      jsonPath: `$${jsonPathMember(first.name)}[?@.createdAt >= '2026-01-01']`,
    }
  }
  const { resource, field, value } = equality
  return {
    json: { collection: resource.name, filter: `${snakeCase(field)} = '${value}'`, limit: 10 },
    sql: `SELECT * FROM ${resource.table} WHERE ${snakeCase(field)} = '${value}' ORDER BY created_at DESC LIMIT 10`,
    jsonPath: `$${jsonPathMember(resource.name)}[${jsonPathFilter(resource)}]`,
  }
}
