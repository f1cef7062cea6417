import { parseAggregateParams } from '../../shared/query/aggregate-params.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { representation } from '../http/conditional.ts'
import type { MethodTable } from '../http/method-table.ts'
import { queryHandler } from '../query/handlers.ts'
import { ACCEPT_AGGREGATE_QUERY } from '../query/media.ts'
import { aggregatePage } from '../resources/aggregates.ts'
import type { EngineContext } from '../resources/context.ts'
import { type ApiVersion, presentationOf } from '../versions/versions.ts'
import { readRoute } from './cached-read.ts'
import { parentOf } from './parent-of.ts'

/** `Accept-Query` of the aggregates, kept with their cached answers. */
const QUERY_FORMATS = { 'Accept-Query': ACCEPT_AGGREGATE_QUERY }

/**
 * `GET /{collection}/aggregates` (and nested): counts and sums per group, conditional and kept by
 * the response cache as a list is; QUERY with a form or JSON body carrying the same parameters.
 */
export function aggregatesTable(
  engine: EngineContext,
  prefix: string,
  resource: Resource,
  version: ApiVersion,
): MethodTable {
  const presentation = presentationOf(engine.schema, version)
  return {
    GET: readRoute(async ({ url, params, principal }) => {
      const { query, filters } = parseAggregateParams(engine.schema, resource, url.searchParams)
      const page = await aggregatePage(engine, principal, {
        resource,
        query,
        parent: parentOf(resource, params),
        presentation,
        link: url,
        filters,
      })
      // The one place the answer is made: other representations (CSV) are chosen here.
      return representation(page.body, page.lastModified, QUERY_FORMATS)
    }),
    QUERY: queryHandler(
      engine,
      prefix,
      (params) => ({ kind: 'aggregates', resource, parent: parentOf(resource, params) }),
      version,
    ),
  }
}
