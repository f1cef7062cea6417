import type { AnyElysia } from 'elysia'
import { badRequest, notFound } from '../../shared/errors.ts'
import { isId } from '../../shared/ids.ts'
import { parseListParams } from '../../shared/query/list-params.ts'
import { PAGINATION_PARAMS, rejectUnknownParams } from '../../shared/query/pagination.ts'
import { parseSearchParams } from '../../shared/query/search-params.ts'
import { parseShape, SHAPE_PARAMS } from '../../shared/query/shape.ts'
import type { ListQuery } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { TokenVerifier } from '../auth/tokens.ts'
import { batchTable } from '../batch/endpoint.ts'
import { readJsonBody } from '../http/body.ts'
import { conditionalJson } from '../http/conditional.ts'
import { allowedMethods, type MethodTable, pickHandler } from '../http/method-table.ts'
import { edgeStateOf } from '../http/request-state.ts'
import type { ResponseCache } from '../http/response-cache.ts'
import { errorResponse, noContent } from '../http/responses.ts'
import { requireListFormat } from '../http/tabular.ts'
import { queryHandler, storedQueryTable, storedResultTable } from '../query/handlers.ts'
import { listRepresentation } from '../query/list-answer.ts'
import { listColumns } from '../query/list-columns.ts'
import { ACCEPT_AGGREGATE_QUERY, ACCEPT_QUERY } from '../query/media.ts'
import type { EngineContext } from '../resources/context.ts'
import { prepareBulkDelete } from '../resources/deletes.ts'
import { runIdempotent } from '../resources/idempotency.ts'
import { listPage } from '../resources/list-page.ts'
import { runWrite } from '../resources/prepared-write.ts'
import { prepareCreate } from '../resources/writes.ts'
import { type ApiVersion, fromBase, inVersion, presentationOf, toBase } from '../versions/versions.ts'
import { aggregatesTable } from './aggregates-route.ts'
import { bulkTypeOf } from './bulk-body.ts'
import { bulkCreate } from './bulk-create.ts'
import { cachedRead, type ReadRoute, readRoute } from './cached-read.ts'
import { idempotencyKeyOf, idempotentResponse } from './idempotency.ts'
import { parentOf } from './parent-of.ts'
import { actionTable, entityAnswer, revealsSecrets, singletonTable } from './record-routes.ts'

interface RestDeps {
  engine: EngineContext
  verifier: TokenVerifier
  log: (error: unknown) => void
  /** The API version these routes answer in (server/versions/): bodies and records are translated at this edge. */
  version: ApiVersion
  /** Keeps record reads' answers (server/http/response-cache.ts); undefined under `serve --no-cache`. */
  cache?: ResponseCache
}

/** `Accept-Query` of a collection's reads, kept with their cached answers. */
const QUERY_FORMATS = { 'Accept-Query': ACCEPT_QUERY }

const NO_PARAMS = new Set<string>()
const NOT_FOR_BULK_DELETE = [...PAGINATION_PARAMS, ...SHAPE_PARAMS, 'sort']

/** Bulk delete takes `confirm` and the collection's filters, nothing that pages or sorts. */
function bulkDeleteQuery(schema: Schema, resource: Resource, url: URL): ListQuery {
  const parsed = parseListParams(schema, resource, url.searchParams, ['confirm'])
  const paging = NOT_FOR_BULK_DELETE.find((name) => url.searchParams.has(name))
  if (paging)
    throw badRequest(`${paging} does not apply to a bulk delete.`, [
      { field: paging, message: 'is not a parameter of a bulk delete' },
    ])
  if (url.searchParams.get('confirm') !== resource.name) {
    throw badRequest(`Deleting a whole collection needs confirm=${resource.name}.`, [
      { field: 'confirm', message: `must be ${resource.name}` },
    ])
  }
  return parsed.query
}

function collectionTable(prefix: string, resource: Resource, deps: RestDeps, nested: boolean): MethodTable {
  const { engine, version } = deps
  const presentation = presentationOf(engine.schema, version)
  const table: MethodTable = {
    GET: readRoute(async ({ request, url, params, principal }) => {
      const format = requireListFormat(request)
      const { query, filters, shape } = parseListParams(engine.schema, resource, url.searchParams)
      const parent = parentOf(resource, params)
      const link = url
      const page = await listPage(engine, principal, {
        resource,
        query,
        parent,
        presentation,
        link,
        filters,
        shape,
      })
      // listPage has checked the shape already (400, 403).
      const columns = () =>
        listColumns(
          presentation,
          resource,
          shape && parseShape(engine.schema, resource, shape, presentation.fieldNames),
        )
      return listRepresentation(format, page, url, columns, QUERY_FORMATS)
    }, requireListFormat),
    QUERY: queryHandler(
      engine,
      prefix,
      (params) => ({ kind: 'collection', resource, parent: parentOf(resource, params) }),
      version,
    ),
  }
  if (!resource.writable || (resource.parent && !nested)) return table
  table.POST = async ({ request, url, params, principal }) => {
    // CSV and NDJSON bodies create many records at once (docs/bulk.md, "CSV and NDJSON in").
    const type = bulkTypeOf(request.headers.get('content-type'))
    if (type)
      return bulkCreate(engine, version, resource, {
        request,
        url,
        principal,
        type,
        parent: parentOf(resource, params),
      })
    rejectUnknownParams(url.searchParams, NO_PARAMS)
    const body = toBase(version, resource, await readJsonBody(request))
    const key = idempotencyKeyOf(request, url.pathname, body)
    // Validation and the engine's checks answer in the version's words (v2's `amount.currency`).
    const answer = await inVersion(version, resource, body, () => {
      const write = prepareCreate(engine, principal, resource, body, parentOf(resource, params))
      return runIdempotent(
        engine,
        principal,
        key,
        write,
        (entity) =>
          entityAnswer(201, fromBase(engine.schema, version, resource, entity), {
            Location: `${prefix}/${resource.name}/${entity.id as string}`,
          }),
        revealsSecrets(resource),
      )
    })
    return idempotentResponse(answer)
  }
  table.DELETE = async ({ url, params, principal }) => {
    const query = bulkDeleteQuery(engine.schema, resource, url)
    const parent = parentOf(resource, params)
    const write = prepareBulkDelete(principal, resource, query.where, query.search, parent)
    const count = await runWrite(engine, write)
    return noContent({ 'Deleted-Count': String(count) })
  }
  return table
}

/** Mounts every declared resource under `prefix` (`/api/v1`): collections, singletons and nested paths. */
export function mountRest(app: AnyElysia, prefix: string, deps: RestDeps): void {
  const mount = (
    path: string,
    table: MethodTable,
    resource?: Resource,
    nested = false,
    acceptQuery = ACCEPT_QUERY,
  ) => {
    // Worked out once per path, not per request.
    const allow = allowedMethods(table).join(', ')
    const takesQuery = table.QUERY !== undefined
    const parent = resource?.parent ? deps.engine.schema.byName(resource.parent.collection)! : undefined
    app.all(
      path,
      async ({ request, params }) => {
        try {
          // The token comes first: without one no route says anything, not even 405. OPTIONS is the
          // exception, since CORS preflights carry no credentials.
          if (request.method === 'OPTIONS') return options(allow, takesQuery && acceptQuery)
          // Verified at the edge when the token was known there (server/http/edge.ts).
          const state = edgeStateOf(request)
          let principal =
            state?.principal ??
            state?.verifying ??
            deps.verifier.verifyHeader(request.headers.get('authorization'))
          if (principal instanceof Promise) principal = await principal
          const handler = pickHandler(table, request.method)
          if (handler === 'OPTIONS') return options(allow, takesQuery && acceptQuery)
          // The router needs one parameter name per position: nested paths are /{parent}/:id/{child}/:childId.
          const raw = (params ?? {}) as Record<string, string>
          const p: Record<string, string> = nested
            ? { parentId: raw.id!, ...(raw.childId ? { id: raw.childId } : {}) }
            : raw
          // An id of the wrong shape names nothing: 404 before any lookup.
          if (resource && p.id !== undefined && !isId(p.id, resource.prefix)) throw notFoundId(resource, p.id)
          if (p.parentId !== undefined && parent && !isId(p.parentId, parent.prefix))
            throw notFoundId(parent, p.parentId)
          const route = { request, url: state?.url ?? new URL(request.url), params: p, principal }
          const read = deps.cache && (handler as Partial<ReadRoute>).read ? (handler as ReadRoute) : undefined
          let response = read
            ? cachedRead(deps.engine.schema, deps.cache!, route, read, resource, state)
            : handler(route)
          if (response instanceof Promise) response = await response
          // RFC 10008 §3: resources that take QUERY say which query formats in Accept-Query.
          if (takesQuery) response.headers.set('Accept-Query', acceptQuery)
          // HEAD runs the GET handler: Bun.serve sends its headers, Content-Length included, without the body.
          return response
        } catch (error) {
          return errorResponse(error, deps.log)
        }
      },
      { parse: 'none' },
    )
  }
  mount(`${prefix}/search`, {
    // With `collection` it lists that collection as its own GET does; with `q` it searches them all.
    GET: async ({ request, url, principal }) => {
      const search = parseSearchParams(deps.engine.schema, url.searchParams)
      const page = await listPage(deps.engine, principal, {
        ...search,
        presentation: presentationOf(deps.engine.schema, deps.version),
        link: url,
        echoEmptyFilters: true,
      })
      return conditionalJson(request, page.body, page.lastModified)
    },
    QUERY: queryHandler(deps.engine, prefix, () => ({ kind: 'search' }), deps.version),
  })
  // Batches are the current version's alone: a deprecated version takes no new endpoints.
  if (deps.version.status === 'current') mount(`${prefix}/batch`, batchTable(deps.engine, deps.version))
  mount(`${prefix}/queries/:id`, storedQueryTable(deps.engine, prefix, deps.version))
  mount(`${prefix}/queries/:id/results/:token`, storedResultTable(deps.engine, prefix))
  // v1 is deprecated and gets no new endpoints: aggregates are v2's (docs/bulk.md).
  const aggregates = deps.version.status === 'current'
  const mountAggregates = (base: string, resource: Resource, nested: boolean) => {
    if (!aggregates) return
    const table = aggregatesTable(deps.engine, prefix, resource, deps.version)
    mount(`${base}/aggregates`, table, resource, nested, ACCEPT_AGGREGATE_QUERY)
  }
  for (const resource of deps.engine.schema.resources) {
    mount(`${prefix}/${resource.name}`, collectionTable(prefix, resource, deps, false), resource)
    // Before `/:id`: the router prefers the fixed segment anyway, but the order says so.
    mountAggregates(`${prefix}/${resource.name}`, resource, false)
    mount(`${prefix}/${resource.name}/:id`, singletonTable(resource, deps.engine, deps.version), resource)
    for (const action of resource.actions)
      mount(
        `${prefix}/${resource.name}/:id/${action.name}`,
        actionTable(resource, action, deps.engine, deps.version),
        resource,
      )
    if (resource.parent) {
      const base = `${prefix}/${resource.parent.collection}/:id/${resource.name}`
      mount(base, collectionTable(prefix, resource, deps, true), resource, true)
      mountAggregates(base, resource, true)
      mount(`${base}/:childId`, singletonTable(resource, deps.engine, deps.version), resource, true)
    }
  }
}

/** OPTIONS: the methods of the path, and the query formats (`acceptQuery`) where it takes QUERY. */
function options(allow: string, acceptQuery: string | false): Response {
  return noContent(acceptQuery ? { Allow: allow, 'Accept-Query': acceptQuery } : { Allow: allow })
}

function notFoundId(resource: Resource, id: string) {
  return notFound(`No ${resource.singular} with id ${id.slice(0, 100)}.`)
}
