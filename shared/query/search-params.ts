import { badRequest } from '../errors.ts'
import type { Resource } from '../resources/index.ts'
import type { Schema } from '../schema/schema.ts'
import { parseFilterExpression } from './filter-expression.ts'
import { type Orderable, type ParsedList, parseListParams, parseSearch, parseSort } from './list-params.ts'
import { PAGINATION_PARAMS, parsePage, rejectUnknownParams } from './pagination.ts'
import { SHAPE_PARAMS, type ShapeParams, shapeParamsOf } from './shape.ts'
import type { ListQuery } from './types.ts'

const SEARCH_PARAMS = new Set<string>([...PAGINATION_PARAMS, ...SHAPE_PARAMS, 'q', 'search', 'sort'])
// Cross-collection results are ordered by a field every record has.
const ACROSS_COLLECTIONS: Orderable = {
  name: 'search',
  fields: {},
  sortable: ['createdAt', 'updatedAt'],
  searchable: ['*'],
}

/** What /api/v1/search asks for: one collection (`collection`), or every searchable one (`q`). */
interface SearchQuery {
  /** Undefined when `q` searches every searchable collection the caller may read. */
  resource?: Resource
  query: ListQuery
  /** The applied filters, keyed by parameter name, echoed in the response. */
  filters: Record<string, unknown>
  /** `fields` and `expand` as given (across collections, `fields` alone). */
  shape?: ShapeParams
}

/**
 * A collection's own list parameters plus, when given, the boolean `filter` expression of
 * docs/filter-grammar.md, ANDed with them and echoed as `filter`.
 */
export function parseFilteredList(
  schema: Schema,
  resource: Resource,
  params: URLSearchParams,
  filter: string | null,
): ParsedList {
  const parsed = parseListParams(schema, resource, params)
  if (filter !== null) {
    parsed.query.where.push(parseFilterExpression(schema, resource, filter))
    parsed.filters.filter = filter
  }
  return parsed
}

function collectionParam(schema: Schema, params: URLSearchParams): Resource {
  const name = params.get('collection')!
  const resource = schema.byName(name)
  if (!resource) {
    throw badRequest(`Unknown collection ${name.slice(0, 64)}.`, [
      { field: 'collection', message: 'is not a collection' },
    ])
  }
  return resource
}

/**
 * The parameters of /api/v1/search (a GET's query string, or a QUERY's form or JSON body). With
 * `collection` (and usually `filter`) they list that collection with every parameter of its own
 * GET; without, `q` (or `search`) searches every searchable collection, with `sort` on
 * createdAt/updatedAt and pagination. 400 naming the parameter otherwise.
 */
export function parseSearchParams(schema: Schema, given: URLSearchParams): SearchQuery {
  // Checked before parseListParams sees the rest without them, so its check for repeats misses these.
  for (const name of ['collection', 'filter']) {
    if (given.getAll(name).length > 1) {
      throw badRequest(`The ${name} parameter is repeated.`, [
        { field: name, message: 'must appear at most once' },
      ])
    }
  }
  if (given.has('collection')) {
    const resource = collectionParam(schema, given)
    const params = new URLSearchParams(given)
    params.delete('collection')
    params.delete('filter')
    return { resource, ...parseFilteredList(schema, resource, params, given.get('filter')) }
  }
  if (given.has('filter')) {
    throw badRequest('A filter needs a collection.', [
      { field: 'collection', message: 'is required with filter' },
    ])
  }
  rejectUnknownParams(given, SEARCH_PARAMS)
  const text = parseSearch(ACROSS_COLLECTIONS, given)
  if (text === undefined) {
    throw badRequest('Give q (free text), or collection and filter.', [
      { field: 'q', message: 'is required' },
    ])
  }
  const sort = parseSort(ACROSS_COLLECTIONS, given.get('sort'))
  const { page, includeTotal } = parsePage(given)
  // Echoed under the name the client used, as collection GETs do (`q` or its alias `search`).
  const filters = { [given.has('q') ? 'q' : 'search']: text }
  return {
    query: { where: [], search: text, sort, page, includeTotal },
    filters,
    shape: shapeParamsOf(given),
  }
}
