import { parseShape } from '../../shared/query/shape.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { type ListFormat, requireListFormat } from '../http/tabular.ts'
import { aggregateColumns } from '../resources/aggregates.ts'
import { type ApiVersion, presentationOf } from '../versions/versions.ts'
import { fieldColumns, listColumns } from './list-columns.ts'
import type { ParsedQuery } from './run.ts'
import type { QueryTarget } from './target.ts'

const EVERY: readonly ListFormat[] = ['json', 'csv', 'ndjson']
/** A JSONPath answer holds whatever nodes the path selects: no declared columns, so no CSV. */
const NODES: readonly ListFormat[] = ['json', 'ndjson']

/**
 * The format a QUERY (or a stored query's GET) answers in: a list of records (form, JSON and SQL
 * bodies on a collection) as a GET of it does, JSONPath nodes as JSON or NDJSON, 406 for an Accept
 * none of those satisfies. QUERY on `/search` (and its stored queries) answers JSON whatever
 * Accept says, as `/search` always has.
 */
export function queryFormat(request: Request, parsed: ParsedQuery, target: QueryTarget): ListFormat {
  if (parsed.kind === 'search' || target.kind === 'search') return 'json'
  return requireListFormat(request, parsed.kind === 'jsonpath' ? NODES : EVERY)
}

/**
 * The CSV columns of a list query's records: a SQL body's column list in its order, else the
 * declared fields as `fields` and `expand` of a form or JSON body shape them.
 */
export function queryColumns(schema: Schema, parsed: ParsedQuery, version: ApiVersion): () => string[] {
  return () => {
    if (parsed.kind === 'aggregates') return aggregateColumns(parsed.query)
    if (parsed.kind !== 'list') return []
    const presentation = presentationOf(schema, version)
    const { resource, fields, shape } = parsed
    if (fields) return fieldColumns(presentation, resource, fields)
    return listColumns(
      presentation,
      resource,
      shape && parseShape(schema, resource, shape, presentation.fieldNames),
    )
  }
}
