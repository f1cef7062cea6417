import { invalid, methodNotAllowed, notFound } from '../../shared/errors.ts'
import { isId } from '../../shared/ids.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { BATCH_PREFIX, type Operation } from './body.ts'
import { parseTemplate, type Reference } from './references.ts'

/** An id in an operation's path: as written, or an earlier result's field. */
export type IdSegment = { id: string } | { reference: Reference }

/**
 * What an operation's path names, worked out from the declared schema as the REST routes are
 * mounted from it (server/rest/routes.ts), without a second router:
 * `/{c}` and `/{parent}/{id}/{c}` (create), `/{c}/{id}` and `/{parent}/{id}/{c}/{id}` (one
 * record), `/{c}/{id}/{action}`.
 */
export type Target =
  | { kind: 'create'; resource: Resource; parent?: IdSegment }
  | { kind: 'record'; resource: Resource; id: IdSegment; parent?: IdSegment }
  | { kind: 'action'; resource: Resource; id: IdSegment; action: Action }

const noSuchPath = (op: Operation) => notFound(`No write of a batch at ${op.path.slice(0, 200)}.`)

/** An id segment: a literal id of `resource` (404 otherwise, as REST answers), or one reference. */
function idSegment(op: Operation, text: string, resource: Resource): IdSegment {
  const parts = parseTemplate(text, `${op.place}.path`)
  const [only] = parts
  if (parts.length === 1 && typeof only === 'string') {
    if (!isId(only, resource.prefix)) throw notFound(`No ${resource.singular} with id ${text.slice(0, 100)}.`)
    return { id: only }
  }
  if (parts.length === 1 && only !== undefined && typeof only !== 'string') return { reference: only }
  throw invalid('A reference in a path must be a whole segment.', [
    { field: `${op.place}.path`, message: 'a reference in a path must be a whole segment, in an id’s place' },
  ])
}

/** The target of an operation's path; 404 for a path no write of a batch has. */
function targetOf(schema: Schema, op: Operation): Target {
  const segments = op.path.slice(BATCH_PREFIX.length).split('/')
  const [first, id, third, childId] = segments
  const resource = first === undefined ? undefined : schema.byName(first)
  // A reference stands in an id's place only; elsewhere the path names nothing.
  if (!resource || segments.length > 4 || [first, third].some((s) => s?.includes('$'))) throw noSuchPath(op)
  if (segments.length === 1) return { kind: 'create', resource }
  if (segments.length === 2) return { kind: 'record', resource, id: idSegment(op, id!, resource) }
  const action = resource.actions.find((a) => a.name === third)
  if (action && segments.length === 3)
    return { kind: 'action', resource, action, id: idSegment(op, id!, resource) }
  const child = schema.byName(third!)
  if (!child || child.parent?.collection !== resource.name) throw noSuchPath(op)
  const parent = idSegment(op, id!, resource)
  if (segments.length === 3) return { kind: 'create', resource: child, parent }
  return { kind: 'record', resource: child, parent, id: idSegment(op, childId!, child) }
}

/** 405 for a method the target does not take; no `Allow`: the batch's own path takes POST. */
const wrongMethod = (message: string) => methodNotAllowed([], message)

/**
 * The target of an operation, with its method checked: a create takes POST (a bulk DELETE of a
 * collection is not one write and is refused), a record PUT, PATCH and DELETE, an action POST.
 */
export function resolveTarget(schema: Schema, op: Operation): Target {
  const target = targetOf(schema, op)
  const { method } = op
  if (target.kind === 'create') {
    if (method === 'DELETE')
      throw wrongMethod('A DELETE of a whole collection is a bulk delete, not one write: send it on its own.')
    // As REST mounts it: a nested collection is created through its parent's path only.
    if (method !== 'POST' || (target.resource.parent && !target.parent))
      throw wrongMethod(`${method} does not apply to a collection in a batch.`)
  } else if (target.kind === 'record' && method === 'POST')
    throw wrongMethod('POST does not apply to one record; use PUT, PATCH or DELETE.')
  else if (target.kind === 'action' && method !== 'POST')
    throw wrongMethod(`An action takes POST, not ${method}.`)
  return target
}
