/**
 * The internal query: every way of asking for records (GET parameters, QUERY bodies, /search
 * expressions, GraphQL arguments, the CLI's flags) becomes one of these, and it is compiled to SQL
 * in exactly one place (server/store/compile.ts).
 */
export type Comparison = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'like' | 'in'

/** A function applied to the field before comparing (SQL QUERY bodies, JSONPath `length()`). */
export type FieldFunction = 'lower' | 'upper' | 'length'

export type Condition =
  | {
      kind: 'compare'
      field: string
      op: Comparison
      value: string | number | boolean | null | (string | number)[]
      fn?: FieldFunction
    }
  | { kind: 'and' | 'or'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition }

export interface SortKey {
  field: string
  descending: boolean
}

export type Page =
  | { style: 'cursor'; limit: number; cursor?: string }
  | { style: 'page'; limit: number; page: number }
  | { style: 'offset'; limit: number; offset: number }
  | { style: 'keyset'; limit: number; after: string }

export interface ListQuery {
  where: Condition[]
  search?: string
  sort: SortKey[]
  page: Page
  includeTotal: boolean
}

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100
export const DEFAULT_SORT: SortKey[] = [{ field: 'createdAt', descending: true }]
