import {
  type ApiError,
  conflict,
  type ErrorDetail,
  insufficientScope,
  methodNotAllowed,
  validationError,
} from '../../shared/errors.ts'
import { newId } from '../../shared/ids.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { UniqueTakenError } from '../store/types.ts'
import { loadParent, loadRecord } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { appendEvent } from './events.ts'
import { checkPrecondition, type Precondition } from './precondition.ts'
import { type PreparedWrite, runWrite } from './prepared-write.ts'
import type { Entity } from './reads.ts'
import { validateBody, type WriteMode } from './validate.ts'

/** 405: a read-only collection (the event log, deliveries) takes no write. */
export function readOnly(resource: Resource): ApiError {
  return methodNotAllowed([], `${resource.name} is read-only.`)
}

function taken(resource: Resource, name: string, options: { cause?: unknown } = {}): ApiError {
  return conflict(`Another ${resource.singular} already has this ${name}.`, {
    details: [{ field: name, message: 'is already taken in this organization' }],
    cause: options.cause,
  })
}

/** A write whose unique value a concurrent write took after the check: the same 409 as the check. */
async function unlessTaken<T>(resource: Resource, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof UniqueTakenError) throw taken(resource, error.field, { cause: error })
    throw error
  }
}

/** Referenced records must exist in the caller's organization; unique fields must be free. */
async function checkRelations(
  ctx: EngineContext,
  resource: Resource,
  orgId: string,
  values: Record<string, unknown>,
  selfId?: string,
): Promise<void> {
  const details: ErrorDetail[] = []
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name]!
    if (field.references && value !== null && resource.parent?.field !== name) {
      const target = ctx.schema.byName(field.references)!
      if (!(await ctx.store.records.existsInOrg(target, orgId, value as string))) {
        details.push({ field: name, message: `no ${target.singular} with id ${value as string}` })
      }
    }
  }
  if (details.length > 0) throw validationError(details)
  for (const [name, value] of Object.entries(values)) {
    if (
      resource.fields[name]!.unique &&
      (await ctx.store.records.uniqueTaken(resource, orgId, name, value, selfId))
    ) {
      throw taken(resource, name)
    }
  }
}

/** What every write of `resource` needs, checked before anything else (and before a replay). */
export function authorizeWrite(principal: Principal, resource: Resource): void {
  if (!resource.writable) throw readOnly(resource)
  requireScope(principal, resource.scopes.write)
}

/**
 * Fields declared `privileged` (a user's role) are an admin's to set: giving one a value other
 * than its default on create, or another value than it has, needs the collection's `delete:`
 * scope, which only the admin role carries. Without it, 403 naming the field and the scope.
 */
function checkPrivileged(
  principal: Principal,
  resource: Resource,
  values: Record<string, unknown>,
  before?: Entity,
): void {
  for (const name of resource.privilegedFields) {
    if (!Object.hasOwn(values, name)) continue
    const current = before ? before[name] : resource.fields[name]!.default
    if (values[name] === current || principal.scopes.has(resource.scopes.delete)) continue
    throw insufficientScope(
      resource.scopes.delete,
      `Only an admin may set or change a ${resource.singular}'s ${name} (the token lacks ${resource.scopes.delete}).`,
      [{ field: name, message: `setting it requires ${resource.scopes.delete}` }],
    )
  }
}

/** Fields declared `defaultToCaller` that a create leaves out: the token's user, or null for a client. */
function fillCallerDefaults(
  resource: Resource,
  principal: Principal,
  body: unknown,
  values: Record<string, unknown>,
): void {
  for (const name of resource.callerDefaultFields) {
    if (Object.hasOwn(body as object, name)) continue
    values[name] = principal.kind === 'user' ? principal.subject : null
  }
}

/**
 * A create's body validated, its defaults filled (the caller's own too) and its privileged fields
 * checked: the values to store, before references and unique values are checked in the transaction.
 */
export function createValues(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  body: unknown,
): Record<string, unknown> {
  const values = validateBody(ctx.schema, resource, body, 'create')
  ctx.hooks?.get(resource.name)?.complete?.(ctx.schema, values, 'create')
  fillCallerDefaults(resource, principal, body, values)
  checkPrivileged(principal, resource, values)
  return values
}

/**
 * POST of one record, first phase (server/resources/prepared-write.ts): authorization, the body
 * validated and its defaults filled; `check` runs the resource's hooks' checks (a webhook URL's
 * lookup). `apply` loads the parent, checks references and unique values and inserts the record
 * with its event; a resource's `created` hook adds what only this answer shows.
 */
export function prepareCreate(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  body: unknown,
  parent?: ParentRef,
): PreparedWrite<Entity> {
  authorizeWrite(principal, resource)
  const values = createValues(ctx, principal, resource, body)
  const hooks = ctx.hooks?.get(resource.name)
  return {
    check: async () => await hooks?.check?.(values),
    apply: async (tx) => {
      const row = { ...values }
      if (parent) {
        await loadParent(tx, principal, resource, parent)
        row[resource.parent!.field] = parent.id
      }
      await checkRelations(tx, resource, principal.orgId, row)
      const now = isoNow(tx.clock())
      const id = newId(resource.prefix, tx.clock())
      const entity = await unlessTaken(resource, () =>
        tx.store.records.insert(resource, { id, orgId: principal.orgId, values: row, now }),
      )
      await appendEvent(tx, principal, resource, 'created', entity, now)
      const revealed = await hooks?.created?.(tx, principal, entity, now)
      return revealed ? { ...entity, ...revealed } : entity
    },
  }
}

/** Creates one record in a transaction of its own (GraphQL, tests): `prepareCreate`, then `runWrite`. */
export async function createRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  body: unknown,
  parent?: ParentRef,
): Promise<Entity> {
  return await runWrite(ctx, prepareCreate(ctx, principal, resource, body, parent))
}

/**
 * PATCH (`patch`) or PUT (`replace`) of one record, first phase: authorization and the body
 * validated; `check` runs the hooks' checks. `apply` returns the full record after the change,
 * having compared `If-Match` and who may change a privileged field with the record as it is then.
 */
export function prepareUpdate(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  id: string,
  body: unknown,
  mode: Exclude<WriteMode, 'create'>,
  parent?: ParentRef,
  precondition?: Precondition,
): PreparedWrite<Entity> {
  authorizeWrite(principal, resource)
  const values = validateBody(ctx.schema, resource, body, mode)
  const hooks = ctx.hooks?.get(resource.name)
  hooks?.complete?.(ctx.schema, values, mode)
  return {
    check: async () => await hooks?.check?.(values),
    apply: async (tx) => {
      const before = (await loadRecord(tx, principal, resource, id, parent, true)).entity
      checkPrecondition(precondition, before)
      hooks?.changing?.(before, values)
      checkPrivileged(principal, resource, values, before)
      await checkRelations(tx, resource, principal.orgId, values, id)
      const now = isoNow(tx.clock())
      const entity = await unlessTaken(resource, () => tx.store.records.update(resource, before, values, now))
      await appendEvent(tx, principal, resource, 'updated', entity, now)
      return entity
    },
  }
}
