import { badRequest } from '../../shared/errors.ts'
import { type ParsedAggregate, parseAggregateParams } from '../../shared/query/aggregate-params.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'
import { aggregatePage } from '../resources/aggregates.ts'
import type { EngineContext, ParentRef } from '../resources/context.ts'
import type { ListAnswer } from '../resources/list-page.ts'
import { type ApiVersion, presentationOf } from '../versions/versions.ts'
import { parseFormBody } from './form.ts'
import { parseJsonBody } from './json.ts'
import type { QueryBody } from './media.ts'

/** A QUERY body sent to a collection's aggregates, parsed: the same query its GET would run. */
export interface ParsedAggregateQuery extends ParsedAggregate {
  kind: 'aggregates'
  resource: Resource
}

/**
 * A form or JSON body carrying the parameters of `GET /{collection}/aggregates` (the readers of
 * QUERY_MEDIA_TYPES refuse every other type before this).
 */
export function parseAggregateBody(
  schema: Schema,
  body: QueryBody,
  resource: Resource,
): ParsedAggregateQuery {
  const params = body.mediaType === 'application/json' ? parseJsonBody(body.text) : parseFormBody(body.text)
  return { kind: 'aggregates', resource, ...parseAggregateParams(schema, resource, params) }
}

/** Runs a parsed aggregates body (again, from its stored copy: `cursor` continues it). */
export async function runAggregateQuery(
  engine: EngineContext,
  principal: Principal,
  parsed: ParsedAggregateQuery,
  place: { parent?: ParentRef; link: URL; cursor?: string; after?: string; version: ApiVersion },
): Promise<ListAnswer> {
  if (place.after !== undefined)
    throw badRequest('A group is not a record: aggregates page with cursor.', [
      { field: 'after', message: 'use cursor' },
    ])
  const { query, resource, filters } = parsed
  const page =
    place.cursor === undefined
      ? query.page
      : { style: 'cursor' as const, limit: query.page.limit, cursor: place.cursor }
  return await aggregatePage(engine, principal, {
    resource,
    query: { ...query, page },
    parent: place.parent,
    presentation: presentationOf(engine.schema, place.version),
    link: place.link,
    filters,
  })
}
