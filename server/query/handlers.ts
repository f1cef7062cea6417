import { badRequest, forbidden, internal, notFound } from '../../shared/errors.ts'
import { rejectUnknownParams } from '../../shared/query/pagination.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { conditionalJson, PRIVATE_CACHING } from '../http/conditional.ts'
import { entityTag, parseTagList } from '../http/etag.ts'
import type { MethodHandler, MethodTable } from '../http/method-table.ts'
import { noContent } from '../http/responses.ts'
import type { EngineContext } from '../resources/context.ts'
import { requireWholeView } from '../resources/visibility.ts'
import type { StoredQuery } from '../store/types.ts'
import { type ApiVersion, V1, versionOfPath } from '../versions/versions.ts'
import { AGGREGATE_QUERY_MEDIA_TYPES, QUERY_MEDIA_TYPES, readQueryBody } from './media.ts'
import {
  type Continuation,
  jsonPathLimit,
  type ParsedQuery,
  parseQuery,
  runQuery,
  unprocessableWhileRunning,
} from './run.ts'
import { forgetQuery, queryPath, resultTokenHash, shouldTouch, storeQuery, storeResult } from './stored.ts'
import { type QueryTarget, targetOfPath } from './target.ts'

/**
 * RFC 10008 §2.7: a QUERY response depends on the request content, so caches key it on the body
 * and on the headers that give the body its meaning; the token decides what the caller may see.
 */
const QUERY_VARY = 'Authorization, Content-Type, Content-Encoding'

/**
 * QUERY on a collection or /api/v1/search: reads the body by its Content-Type, runs it like the
 * GET it stands for, and answers the page with `Location` (the stored query: GET runs it again)
 * and `Content-Location` (this very response, kept for GET a short while). Conditional like GET.
 */
export function queryHandler(
  engine: EngineContext,
  prefix: string,
  targetOf: (params: Record<string, string>) => QueryTarget,
  version: ApiVersion = V1,
): MethodHandler {
  return async ({ request, url, params, principal }) => {
    const target = targetOf(params)
    const body = await readQueryBody(
      request,
      target.kind === 'aggregates' ? AGGREGATE_QUERY_MEDIA_TYPES : QUERY_MEDIA_TYPES,
    )
    // The body is the query; only the page size of a JSONPath query, which has no syntax for it, is a parameter.
    rejectUnknownParams(url.searchParams, new Set(body.mediaType === 'application/jsonpath' ? ['limit'] : []))
    const limit = body.mediaType === 'application/jsonpath' ? jsonPathLimit(url) : undefined
    const parsed = await parseQuery(engine.schema, body, target, limit)
    const now = engine.clock()
    const { query, created } = await storeQuery(
      engine.store,
      principal,
      `${url.pathname}${url.search}`,
      body,
      now,
    )
    const location = queryPath(prefix, query.id)
    let outcome: Awaited<ReturnType<typeof runQuery>>
    try {
      // Errors about the body's content found while running (a cursor in a form body) are 422 too.
      outcome = await unprocessableWhileRunning(() =>
        runQuery(engine, principal, parsed, target, new URL(location, url), {}, version),
      )
    } catch (error) {
      if (created) await forgetQuery(engine.store, query.id)
      throw error
    }
    const response = conditionalJson(request, outcome.body, outcome.lastModified, {
      Location: location,
      Vary: QUERY_VARY,
    })
    if (response.status !== 200) return response
    const stored = {
      'Content-Type': response.headers.get('content-type')!,
      ETag: response.headers.get('etag')!,
      'Last-Modified': response.headers.get('last-modified')!,
      Location: location,
    }
    const resultPath = await storeResult(
      engine.store,
      prefix,
      query,
      stored,
      JSON.stringify(outcome.body),
      now,
    )
    if (resultPath) response.headers.set('Content-Location', resultPath)
    return response
  }
}

/** A stored query of the caller's organization: 404 when missing, 403 in another organization. */
async function loadQuery(engine: EngineContext, principal: Principal, id: string): Promise<StoredQuery> {
  const query = /^qry_[0-9a-z]{26}$/.test(id) ? await engine.store.queries.find(id, engine.clock()) : null
  if (!query) throw notFound('No stored query with this id.')
  if (query.orgId !== principal.orgId) throw forbidden('This stored query belongs to another organization.')
  return query
}

/** A stored query parsed again, with the target and the scopes running it needs. */
async function reparse(
  schema: Schema,
  prefix: string,
  query: StoredQuery,
): Promise<{ target: QueryTarget; parsed: ParsedQuery }> {
  const url = new URL(query.target, 'http://stored.invalid')
  // A stored query is the same query in every version (GET /api/v2/queries/{id} answers in v2's shape).
  const target = targetOfPath(schema, versionOfPath(url.pathname)?.prefix ?? prefix, url.pathname)
  if (!target) throw notFound('No stored query with this id.')
  // A row written by a later version, before a rollback, may hold a format this one does not read.
  const mediaType = QUERY_MEDIA_TYPES.find((type) => type === query.mediaType)
  if (!mediaType) throw internal(new Error(`stored query ${query.id} has media type ${query.mediaType}`))
  const limit = mediaType === 'application/jsonpath' ? jsonPathLimit(url) : undefined
  const parsed = await parseQuery(schema, { mediaType, text: query.body }, target, limit)
  return { target, parsed }
}

/** The read scope a parsed query needs: that of the collection it reads, if one is named (returned). */
function requireReadScope(schema: Schema, principal: Principal, parsed: ParsedQuery): Resource | undefined {
  const collection =
    parsed.kind === 'list' || parsed.kind === 'aggregates'
      ? parsed.resource
      : parsed.kind === 'jsonpath'
        ? parsed.plan.resource
        : schema.byName(parsed.params.get('collection') ?? '')
  if (collection) requireScope(principal, collection.scopes.read)
  return collection
}

/** `/api/v1/queries/{id}`: GET runs the stored query again with the caller's rights, DELETE drops it. */
export function storedQueryTable(
  engine: EngineContext,
  prefix: string,
  version: ApiVersion = V1,
): MethodTable {
  return {
    GET: async ({ request, url, params, principal }) => {
      const query = await loadQuery(engine, principal, params.id!)
      rejectUnknownParams(url.searchParams, new Set(['cursor', 'after']))
      const cursor = url.searchParams.get('cursor') ?? undefined
      const after = url.searchParams.get('after') ?? undefined
      if (cursor !== undefined && after !== undefined)
        throw badRequest('Use cursor or after, not both.', [
          { field: 'after', message: 'cannot be combined with cursor' },
        ])
      const { target, parsed } = await reparse(engine.schema, prefix, query)
      const continuation: Continuation = { cursor, after }
      const outcome = await runQuery(engine, principal, parsed, target, url, continuation, version)
      const now = engine.clock()
      if (shouldTouch(query, now)) await engine.store.queries.touch(query.id, now)
      return conditionalJson(request, outcome.body, outcome.lastModified)
    },
    DELETE: async ({ url, params, principal }) => {
      rejectUnknownParams(url.searchParams, new Set())
      const query = await loadQuery(engine, principal, params.id!)
      requireReadScope(engine.schema, principal, (await reparse(engine.schema, prefix, query)).parsed)
      await forgetQuery(engine.store, query.id)
      return noContent()
    },
  }
}

/**
 * `/api/v1/queries/{id}/results/{token}`: exactly the response the QUERY gave, for RESULT_TTL_MS,
 * to callers of the same organization who may read what it shows.
 */
export function storedResultTable(engine: EngineContext, prefix: string): MethodTable {
  return {
    GET: async ({ request, url, params, principal }) => {
      rejectUnknownParams(url.searchParams, new Set())
      const now = engine.clock()
      const result = await engine.store.queries.findResult(resultTokenHash(params.token ?? ''), now)
      // A stored result is the exact response of one QUERY, so it lives under that QUERY's version.
      const sameVersion = result?.headers.Location?.startsWith(`${prefix}/`) ?? false
      if (!result || result.queryId !== params.id || !sameVersion)
        throw notFound('No stored result here; results are kept 10 minutes.')
      if (result.orgId !== principal.orgId)
        throw forbidden('This stored result belongs to another organization.')
      const query = await loadQuery(engine, principal, result.queryId)
      const collection = requireReadScope(
        engine.schema,
        principal,
        (await reparse(engine.schema, prefix, query)).parsed,
      )
      // The stored answer is what its maker saw: on the event log, events of any collection it read.
      if (collection) requireWholeView(engine.schema, principal, collection)
      const seconds = Math.max(0, Math.floor((Date.parse(result.expiresAt) - now) / 1000))
      const headers: Record<string, string> = {
        ...result.headers,
        'Content-Location': url.pathname,
        'Cache-Control': `private, max-age=${seconds}`,
        Vary: PRIVATE_CACHING.Vary,
      }
      const ifNoneMatch = request.headers.get('if-none-match')
      const tag = result.headers.ETag ?? entityTag(result.body)
      if (
        ifNoneMatch !== null &&
        parseTagList(ifNoneMatch).some((t) => t === '*' || t.replace(/^W\//, '') === tag)
      ) {
        const { 'Content-Type': _type, ...rest } = headers
        return new Response(null, { status: 304, headers: rest })
      }
      return new Response(result.body, { status: 200, headers })
    },
  }
}
