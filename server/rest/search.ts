import { sha256 } from '@oslojs/crypto/sha2'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { badRequest } from '../../shared/errors.ts'
import { parseFilterExpression } from '../../shared/query/filter-expression.ts'
import { type Orderable, parseListParams, parseSearch, parseSort } from '../../shared/query/list-params.ts'
import { PAGINATION_PARAMS, parsePage, rejectUnknownParams } from '../../shared/query/pagination.ts'
import { type Resource, resourceByName } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import { conditionalJson } from '../http/conditional.ts'
import type { EngineContext } from '../resources/context.ts'
import { listRecords } from '../resources/reads.ts'
import { searchAll } from '../resources/search.ts'
import { type ApiVersion, fromBase, V1 } from '../versions/versions.ts'
import { withNext } from './handler.ts'

const SEARCH_PARAMS = new Set<string>([...PAGINATION_PARAMS, 'q', 'search', 'sort'])
// Cross-collection results are ordered by a field every record has.
const ACROSS_COLLECTIONS: Orderable = {
  name: 'search',
  fields: {},
  sortable: ['createdAt', 'updatedAt'],
  searchable: ['*'],
}

function collectionParam(params: URLSearchParams): Resource {
  const name = params.get('collection')!
  const resource = resourceByName(name)
  if (!resource) {
    throw badRequest(`Unknown collection ${name.slice(0, 64)}.`, [
      { field: 'collection', message: 'is not a collection' },
    ])
  }
  return resource
}

/**
 * GET /api/v1/search. With `collection` (and usually `filter`, the boolean expression grammar in
 * docs/filter-grammar.md) it lists that collection like its own GET does, with every parameter
 * of it; without, `q` searches every searchable collection the token may read.
 */
export function searchRequest(
  engine: EngineContext,
  principal: Principal,
  request: Request,
  url: URL,
  version: ApiVersion = V1,
): Response {
  const params = new URLSearchParams(url.searchParams)
  const { body, lastModified } = searchBody(engine, principal, params, url, version)
  return conditionalJson(request, body, lastModified)
}

/**
 * The answer of /api/v1/search to these parameters (a GET's query string, or a QUERY's form or
 * JSON body), with records in the shape of `version`; `link` is the address `pagination.next`
 * continues from.
 */
export function searchBody(
  engine: EngineContext,
  principal: Principal,
  params: URLSearchParams,
  link: URL,
  version: ApiVersion = V1,
): { body: Record<string, unknown>; lastModified: string } {
  // Removed before parseListParams sees the rest, so its check for repeated parameters misses these.
  for (const name of ['collection', 'filter']) {
    if (params.getAll(name).length > 1) {
      throw badRequest(`The ${name} parameter is repeated.`, [
        { field: name, message: 'must appear at most once' },
      ])
    }
  }
  if (params.has('collection')) {
    const resource = collectionParam(params)
    const filter = params.get('filter')
    params.delete('collection')
    params.delete('filter')
    const { query, filters } = parseListParams(resource, params)
    if (filter !== null) {
      query.where.push(parseFilterExpression(resource, filter))
      filters.filter = filter
    }
    const result = listRecords(engine, principal, resource, query)
    const data = result.data.map((record) => fromBase(version, resource, record))
    const body = { data, pagination: withNext(link, result.pagination), filters }
    return { body, lastModified: result.lastModified }
  }
  if (params.has('filter')) {
    throw badRequest('A filter needs a collection.', [
      { field: 'collection', message: 'is required with filter' },
    ])
  }
  rejectUnknownParams(params, SEARCH_PARAMS)
  const text = parseSearch(ACROSS_COLLECTIONS, params)
  if (text === undefined) {
    throw badRequest('Give q (free text), or collection and filter.', [
      { field: 'q', message: 'is required' },
    ])
  }
  const sort = parseSort(ACROSS_COLLECTIONS, params.get('sort'))
  const { page, includeTotal } = parsePage(params)
  const binding = encodeBase64urlNoPadding(
    sha256(new TextEncoder().encode(JSON.stringify([principal.orgId, 'search', text, sort]))),
  )
  const result = searchAll(engine, principal, text, { sort, page, includeTotal, binding })
  // Echoed under the name the client used, as collection GETs do (`q` or its alias `search`).
  const filters = { [params.has('q') ? 'q' : 'search']: text }
  const data = result.data.map((hit) => ({
    collection: hit.collection,
    record: fromBase(version, resourceByName(hit.collection)!, hit.record),
  }))
  const body = { data, pagination: withNext(link, result.pagination), filters }
  return { body, lastModified: result.lastModified }
}
