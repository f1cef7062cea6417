import { rejectUnknownParams } from '../../shared/query/pagination.ts'
import { SHAPE_PARAMS, shapeParamsOf } from '../../shared/query/shape.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import { readJsonBody } from '../http/body.ts'
import { representation } from '../http/conditional.ts'
import { entityTag, parseTagList } from '../http/etag.ts'
import type { MethodTable, RouteRequest } from '../http/method-table.ts'
import { JSON_TYPE, noContent } from '../http/responses.ts'
import { prepareAction } from '../resources/actions.ts'
import type { EngineContext } from '../resources/context.ts'
import { prepareDelete } from '../resources/deletes.ts'
import { runIdempotent, type StoredResponse } from '../resources/idempotency.ts'
import type { Precondition } from '../resources/precondition.ts'
import { runWrite } from '../resources/prepared-write.ts'
import { type Entity, getRecord } from '../resources/reads.ts'
import { columnsFor, resolveShape, shapedLastModified, shapeRecords } from '../resources/shape.ts'
import { prepareUpdate } from '../resources/writes.ts'
import { type ApiVersion, fromBase, inVersion, presentationOf, toBase } from '../versions/versions.ts'
import { readActionBody } from './action-body.ts'
import { readRoute } from './cached-read.ts'
import { idempotencyKeyOf, idempotentResponse } from './idempotency.ts'
import { parentOf } from './parent-of.ts'

/** The routes of one record: the singleton (`/{collection}/{id}`) and its actions. */

const NO_PARAMS = new Set<string>()
/** A singleton's GET takes what shapes the record, nothing else. */
const SHAPE_ONLY = new Set<string>(SHAPE_PARAMS)

/** Its answers to writes may show a secret (`revealed`): kept sealed for an Idempotency-Key's replay. */
export const revealsSecrets = (resource: Resource) => Object.keys(resource.revealed).length > 0

/**
 * The request's `If-Match`, compared by the engine inside the write's transaction with the tag this
 * version's GET hands out for the record as it is then.
 */
function preconditionOf(
  request: Request,
  represent: (entity: Entity) => Record<string, unknown>,
): Precondition | undefined {
  const header = request.headers.get('if-match')
  if (header === null) return undefined
  return { ifMatch: parseTagList(header), tagOf: (entity) => entityTag(JSON.stringify(represent(entity))) }
}

/** A record as the answer to a write, with the ETag a following If-Match can use. */
export function entityAnswer(
  status: number,
  entity: Record<string, unknown>,
  headers: Record<string, string> = {},
): StoredResponse {
  const body = JSON.stringify(entity)
  return {
    status,
    headers: {
      'Content-Type': JSON_TYPE,
      ETag: entityTag(body),
      'Last-Modified': new Date(entity.updatedAt as string).toUTCString(),
      ...headers,
    },
    body,
  }
}

/** `/{collection}/{id}`: GET (shaped by `fields` and `expand`), and PUT, PATCH and DELETE where writable. */
export function singletonTable(resource: Resource, engine: EngineContext, version: ApiVersion): MethodTable {
  // If-Match compares the tag of this version's representation, the one its GET handed out.
  const represent = (entity: Record<string, unknown>) => fromBase(engine.schema, version, resource, entity)
  const presentation = presentationOf(engine.schema, version)
  const id = (params: Record<string, string>, url: URL) => {
    rejectUnknownParams(url.searchParams, NO_PARAMS)
    return params.id!
  }
  const table: MethodTable = {
    GET: readRoute(async ({ url, params, principal }) => {
      rejectUnknownParams(url.searchParams, SHAPE_ONLY)
      const given = shapeParamsOf(url.searchParams)
      // Checked before the record is read: a bad field is 400 and an expansion the token may not read 403.
      const shape = given && resolveShape(engine.schema, principal, resource, presentation, given)
      const columns = shape && columnsFor(presentation, resource, shape)
      const entity = await getRecord(
        engine,
        principal,
        resource,
        params.id!,
        parentOf(resource, params),
        columns,
      )
      const updatedAt = entity.updatedAt as string
      if (!shape) return representation(represent(entity), updatedAt)
      const [body] = await shapeRecords(engine, principal, resource, presentation, [entity], shape)
      return representation(body, await shapedLastModified(engine, principal, shape, updatedAt))
    }),
  }
  if (!resource.writable) return table
  const update =
    (mode: 'replace' | 'patch') =>
    async ({ request, url, params, principal }: RouteRequest) => {
      const body = toBase(version, resource, await readJsonBody(request))
      const parent = parentOf(resource, params)
      const precondition = preconditionOf(request, represent)
      const entity = await inVersion(version, resource, body, () =>
        runWrite(
          engine,
          prepareUpdate(engine, principal, resource, id(params, url), body, mode, parent, precondition),
        ),
      )
      const { body: text, ...init } = entityAnswer(200, represent(entity))
      return new Response(text, init)
    }
  table.PUT = update('replace')
  table.PATCH = update('patch')
  table.DELETE = async ({ request, url, params, principal }) => {
    const parent = parentOf(resource, params)
    const precondition = preconditionOf(request, represent)
    await runWrite(engine, prepareDelete(principal, resource, id(params, url), parent, precondition))
    return noContent()
  }
  return table
}

/**
 * `POST /{collection}/{id}/{action}`: 200 with the whole changed record, replayed for a repeated
 * `Idempotency-Key` as a create is; `If-Match` compares the tag this version's GET handed out.
 */
export function actionTable(
  resource: Resource,
  action: Action,
  engine: EngineContext,
  version: ApiVersion,
): MethodTable {
  const represent = (entity: Record<string, unknown>) => fromBase(engine.schema, version, resource, entity)
  return {
    POST: async ({ request, url, params, principal }) => {
      rejectUnknownParams(url.searchParams, NO_PARAMS)
      const body = await readActionBody(request)
      const key = idempotencyKeyOf(request, url.pathname, body)
      const write = prepareAction(principal, resource, action, params.id!, preconditionOf(request, represent))
      const answer = await runIdempotent(
        engine,
        principal,
        key,
        write,
        (entity) => entityAnswer(200, represent(entity)),
        revealsSecrets(resource),
      )
      return idempotentResponse(answer)
    },
  }
}
