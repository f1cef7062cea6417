import type { JsonObject } from './json.ts'

type Parameter = JsonObject

export const query = (
  name: string,
  schema: JsonObject,
  description: string,
  required = false,
): Parameter => ({
  name,
  in: 'query',
  required,
  schema,
  description,
})

export const header = (name: string, description: string, required = false): Parameter => ({
  name,
  in: 'header',
  required,
  schema: { type: 'string' },
  description,
})

/** The pagination parameters every paginated list takes (docs/api.md, "Reading collections"). */
export const PAGINATION: Parameter[] = [
  query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
  query('cursor', { type: 'string' }, 'Cursor style (the default): pagination.nextCursor of the page before'),
  query('after', { type: 'string' }, 'Keyset style: the id of the record the page starts after'),
  query('page', { type: 'integer', minimum: 1 }, 'Page style: the page number'),
  query('per_page', { type: 'integer', minimum: 1, maximum: 100 }, 'Page style: the page size'),
  query('offset', { type: 'integer', minimum: 0 }, 'Offset style: how many records to skip'),
  query('include_total', { type: 'boolean' }, 'Also count the matching records (total, totalPages)'),
]

/** RFC 9110 §13.1.2-3: a GET that can answer 304. */
export const CONDITIONAL_GET: Parameter[] = [
  header('If-None-Match', 'Answer 304 when one of these ETags matches'),
  header(
    'If-Modified-Since',
    'Answer 304 when nothing changed since (an HTTP date); ignored with If-None-Match',
  ),
]

/**
 * What shapes a read of `relations`' records (docs/api.md, "Fields and expansion"): `fields`,
 * `expand` and `expand_limit`, on collection and singleton GETs, QUERY form and JSON bodies and
 * /search.
 */
export function shapeParameters(relations: readonly string[]): Parameter[] {
  const expandable = relations.length > 0 ? `: ${relations.join(', ')}` : ' (none here)'
  return [
    query(
      'fields',
      { type: 'string' },
      'Comma-separated fields to show (id always); relation.field picks fields of an expanded relation. Unknown fields are 400',
    ),
    query(
      'expand',
      { type: 'string' },
      `Comma-separated relations to show inline, two levels at most (relation.sub)${expandable}. Needs the read scope of each (403)`,
    ),
    query(
      'expand_limit',
      { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      'Records in the first page of each expanded nested collection',
    ),
  ]
}
