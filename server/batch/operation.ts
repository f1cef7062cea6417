import { invalid, notFound } from '../../shared/errors.ts'
import { isId } from '../../shared/ids.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import { entityTag, parseTagList } from '../http/etag.ts'
import { authorizeAction, prepareAction } from '../resources/actions.ts'
import type { EngineContext, ParentRef } from '../resources/context.ts'
import { prepareDelete } from '../resources/deletes.ts'
import type { Precondition } from '../resources/precondition.ts'
import type { PreparedWrite } from '../resources/prepared-write.ts'
import type { Entity } from '../resources/reads.ts'
import { authorizeWrite, prepareCreate, prepareUpdate } from '../resources/writes.ts'
import { type ApiVersion, fromBase, inVersion, toBase } from '../versions/versions.ts'
import type { Operation } from './body.ts'
import { substitute, substituteAll } from './references.ts'
import type { IdSegment, Target } from './target.ts'

/** One operation's answer, as its REST request would give it: status and body (v2's shape). */
export interface OperationResult {
  status: number
  body: Record<string, unknown> | null
}

/**
 * An operation routed, authorized and its body's shape checked. `write` when it has no reference:
 * prepared once, before the transaction. `checked` when only its path refers to an earlier result:
 * its body is validated and its hooks' check run before the transaction, and it is prepared again
 * in the transaction once its ids are known.
 */
export interface Planned {
  op: Operation
  target: Target
  write?: PreparedWrite<OperationResult>
  checked?: PreparedWrite<OperationResult>
}

const isEmptyObject = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0

/**
 * What needs no earlier result: who may write there (scopes, as the REST request is authorized),
 * the body's presence, and `ifMatch` only where a current record exists. A write whose resource
 * checks its values outside the database (a webhook URL's lookup, `ResourceHooks.check`) may not
 * use a reference: that check runs before the batch's transaction, when no result exists yet.
 */
export function checkStatically(
  ctx: EngineContext,
  principal: Principal,
  op: Operation,
  target: Target,
): void {
  const { resource } = target
  if (target.kind === 'action') authorizeAction(principal, resource, target.action)
  else authorizeWrite(principal, resource)
  const problem = (member: string, message: string) =>
    invalid(`${op.place} is not a valid operation.`, [{ field: `${op.place}.${member}`, message }])
  const writesBody = target.kind === 'create' || op.method === 'PUT' || op.method === 'PATCH'
  if (writesBody && op.body === undefined) throw problem('body', `is required for ${op.method}`)
  if (target.kind === 'action' && op.body !== undefined && !isEmptyObject(op.body))
    throw problem('body', 'an action takes no body, or {}')
  if (target.kind === 'create' && op.ifMatch !== undefined)
    throw problem('ifMatch', 'a create has no current record to match')
  if (op.refers.body && writesBody && ctx.hooks?.get(resource.name)?.check)
    throw problem(
      'body',
      `a write to ${resource.name} is checked outside the database before the batch's transaction opens, so it cannot use a reference`,
    )
}

/** The tag this version's GET hands out for a record, compared with `ifMatch` in the transaction. */
function preconditionOf(op: Operation, represent: (entity: Entity) => Record<string, unknown>) {
  if (op.ifMatch === undefined) return undefined
  const precondition: Precondition = {
    ifMatch: parseTagList(op.ifMatch),
    tagOf: (entity) => entityTag(JSON.stringify(represent(entity))),
  }
  return precondition
}

/** A prepared write whose result becomes the operation's answer, its errors in the version's words. */
function answering<T>(
  version: ApiVersion,
  resource: Resource,
  body: unknown,
  write: PreparedWrite<T>,
  answer: (result: T) => OperationResult,
): PreparedWrite<OperationResult> {
  return {
    check: () => inVersion(version, resource, body, () => write.check()),
    apply: (tx) => inVersion(version, resource, body, async () => answer(await write.apply(tx))),
  }
}

/**
 * Prepares one operation with its ids and body known (server/resources/prepared-write.ts): the
 * same `prepare*` its REST request runs, so it is validated and authorized as if sent alone.
 */
export async function prepareOperation(
  ctx: EngineContext,
  principal: Principal,
  version: ApiVersion,
  planned: { op: Operation; target: Target },
  ids: { id?: string; parent?: string },
  sent: unknown,
): Promise<PreparedWrite<OperationResult>> {
  const { op, target } = planned
  const { resource } = target
  const represent = (entity: Entity) => fromBase(ctx.schema, version, resource, entity)
  const precondition = preconditionOf(op, represent)
  const parent: ParentRef | undefined =
    ids.parent === undefined ? undefined : { collection: resource.parent!.collection, id: ids.parent }
  const body = target.kind === 'action' || op.method === 'DELETE' ? {} : toBase(version, resource, sent)
  const shown = (status: number) => (entity: Entity) => ({ status, body: represent(entity) })
  return await inVersion(version, resource, body, async () => {
    if (target.kind === 'create')
      return answering(
        version,
        resource,
        body,
        prepareCreate(ctx, principal, resource, body, parent),
        shown(201),
      )
    if (target.kind === 'action') {
      const write = prepareAction(principal, resource, target.action, ids.id!, precondition)
      return answering(version, resource, body, write, shown(200))
    }
    if (op.method === 'DELETE') {
      const write = prepareDelete(principal, resource, ids.id!, parent, precondition)
      return answering(version, resource, body, write, () => ({ status: 204, body: null }))
    }
    const mode = op.method === 'PUT' ? 'replace' : 'patch'
    const write = prepareUpdate(ctx, principal, resource, ids.id!, body, mode, parent, precondition)
    return answering(version, resource, body, write, shown(200))
  })
}

/** An id of the path: as written, or the referenced value, which must be an id of `resource` (404). */
function idOf(
  segment: IdSegment | undefined,
  resource: Resource,
  results: ReadonlyMap<string, unknown>,
  place: string,
): string | undefined {
  if (segment === undefined) return undefined
  if ('id' in segment) return segment.id
  const value = substitute(segment.reference.text, results, place)
  if (!isId(value, resource.prefix))
    throw notFound(`No ${resource.singular} with id ${String(value).slice(0, 100)}.`)
  return value
}

/** The ids of an operation's path, references resolved against the results so far. */
export function idsOf(
  ctx: EngineContext,
  target: Target,
  results: ReadonlyMap<string, unknown>,
  place: string,
): { id?: string; parent?: string } {
  const parentResource = target.resource.parent && ctx.schema.byName(target.resource.parent.collection)
  const parent = 'parent' in target ? idOf(target.parent, parentResource!, results, place) : undefined
  const id = 'id' in target ? idOf(target.id, target.resource, results, place) : undefined
  return { id, parent }
}

/** An operation's body with its references resolved against the results so far. */
export function bodyOf(op: Operation, results: ReadonlyMap<string, unknown>): unknown {
  return op.body === undefined ? undefined : substituteAll(op.body, results, `${op.place}.body`)
}
