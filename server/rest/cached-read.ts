import { camelCase } from '../../shared/query/fields.ts'
import { relationsOf } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { requireScope } from '../auth/tokens.ts'
import { conditionalAnswer, type Representation } from '../http/conditional.ts'
import type { MethodHandler, RouteRequest } from '../http/method-table.ts'
import type { EdgeState } from '../http/request-state.ts'
import type { ResponseCache } from '../http/response-cache.ts'
import type { ListFormat } from '../http/tabular.ts'

/** A read whose answer the response cache may keep: it serializes, the route answers. */
export type ReadHandler = (req: RouteRequest) => Promise<Representation>

/**
 * A GET handler that also offers its read to the cache, with the format it answers the request
 * in (a list's CSV, NDJSON or JSON; 406 when none), which the cache keys by.
 */
export type ReadRoute = MethodHandler & { read: ReadHandler; format: (request: Request) => ListFormat }

const jsonOnly = () => 'json' as const

/** The GET of a read, answered directly when the cache is off. */
export function readRoute(read: ReadHandler, format: (request: Request) => ListFormat = jsonOnly): ReadRoute {
  const handler = async (req: RouteRequest) => conditionalAnswer(req.request, await read(req))
  return Object.assign(handler, { read, format })
}

/**
 * Whether the cache may keep a read of `resource` at `url`: every record it shows, expanded ones
 * included, changes only with an event (the premise of the organization's stamp); a webhook
 * endpoint's deliveries change under the worker without one.
 */
function cacheable(schema: Schema, resource: Resource | undefined, url: URL): boolean {
  if (resource && !resource.cacheable) return false
  const expand = url.searchParams.get('expand')
  if (!resource || !expand) return true
  for (const path of expand.split(',')) {
    let from = resource
    for (const segment of path.split('.')) {
      const relation = relationsOf(schema, from).find((r) => r.name === camelCase(segment.trim()))
      if (!relation) break
      if (!relation.target.cacheable) return false
      from = relation.target
    }
  }
  return true
}

/**
 * A read through the response cache: the scope check first, then the kept answer while the
 * organization's stamp is unchanged, else the read itself, kept under the stamp read before it.
 */
export async function cachedRead(
  schema: Schema,
  cache: ResponseCache,
  route: RouteRequest,
  { read, format }: Pick<ReadRoute, 'read' | 'format'>,
  resource: Resource | undefined,
  state: EdgeState | undefined,
): Promise<Response> {
  const { principal, request } = route
  if (resource) requireScope(principal, resource.scopes.read)
  const shown = format(request)
  if (!cacheable(schema, resource, route.url)) return conditionalAnswer(request, await read(route))
  const key = cache.keyOf(principal, route.url, shown)
  // The edge asked already when it held an entry for the key: its stamp is the one to keep under.
  const asked = state?.cached?.key === key ? state.cached : undefined
  let stamp = asked?.stamp ?? cache.stamp(principal.orgId)
  if (stamp instanceof Promise) stamp = await stamp
  const kept = asked ? undefined : cache.get(key, stamp)
  if (kept !== undefined) return conditionalAnswer(request, kept)
  const answer = await read(route)
  cache.keep(key, stamp, answer)
  return conditionalAnswer(request, answer)
}
