import { ApiError, type ErrorDetail, validationError } from '../../shared/errors.ts'
import { newId } from '../../shared/ids.ts'
import type { Condition } from '../../shared/query/types.ts'
import { type Action, childrenOf, type Resource, resourceByName } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { type StoredRecord, UniqueTakenError } from '../store/types.ts'
import { loadParent, loadRecord } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { appendEvent } from './events.ts'
import { checkPrecondition, type Precondition } from './precondition.ts'
import type { Entity } from './reads.ts'
import { validateBody, type WriteMode } from './validate.ts'

function readOnly(resource: Resource): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `${resource.name} is read-only.`)
}

function taken(resource: Resource, name: string): ApiError {
  return new ApiError('CONFLICT', `Another ${resource.singular} already has this ${name}.`, [
    { field: name, message: 'is already taken in this organization' },
  ])
}

/** A write whose unique value a concurrent write took after the check: the same 409 as the check. */
async function unlessTaken<T>(resource: Resource, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof UniqueTakenError) throw taken(resource, error.field)
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
      const target = resourceByName(field.references)!
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

/** What an action needs: a state change writes the record; the server's own may act on a read-only one. */
export function authorizeAction(principal: Principal, resource: Resource, action: Action): void {
  if (action.field === undefined) requireScope(principal, resource.scopes.write)
  else authorizeWrite(principal, resource)
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
    throw new ApiError(
      'FORBIDDEN',
      `Only an admin may set or change a ${resource.singular}'s ${name} (the token lacks ${resource.scopes.delete}).`,
      [{ field: name, message: `setting it requires ${resource.scopes.delete}` }],
      {
        'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${resource.scopes.delete}"`,
      },
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

export async function createRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  body: unknown,
  parent?: ParentRef,
): Promise<Entity> {
  authorizeWrite(principal, resource)
  const values = validateBody(resource, body, 'create')
  fillCallerDefaults(resource, principal, body, values)
  checkPrivileged(principal, resource, values)
  const hooks = ctx.hooks?.get(resource.name)
  await hooks?.check?.(values)
  return await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store }
    if (parent) {
      await loadParent(tx, principal, resource, parent)
      values[resource.parent!.field] = parent.id
    }
    await checkRelations(tx, resource, principal.orgId, values)
    const now = isoNow(tx.clock())
    const id = newId(resource.prefix, tx.clock())
    const entity = await unlessTaken(resource, () =>
      tx.store.records.insert(resource, { id, orgId: principal.orgId, values, now }),
    )
    await appendEvent(tx, principal, resource, 'created', entity, now)
    const revealed = await hooks?.created?.(tx, principal, entity, now)
    return revealed ? { ...entity, ...revealed } : entity
  })
}

/**
 * PATCH (`patch`) or PUT (`replace`) of one record; returns the full record after the change.
 * `If-Match` is compared in the write's transaction, with the record as it is then.
 */
export async function updateRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  id: string,
  body: unknown,
  mode: Exclude<WriteMode, 'create'>,
  parent?: ParentRef,
  precondition?: Precondition,
): Promise<Entity> {
  if (!resource.writable) throw readOnly(resource)
  requireScope(principal, resource.scopes.write)
  const values = validateBody(resource, body, mode)
  await ctx.hooks?.get(resource.name)?.check?.(values)
  return await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store }
    const before = (await loadRecord(tx, principal, resource, id, parent, true)).entity
    checkPrecondition(precondition, before)
    checkPrivileged(principal, resource, values, before)
    await checkRelations(tx, resource, principal.orgId, values, id)
    const now = isoNow(tx.clock())
    const entity = await unlessTaken(resource, () => tx.store.records.update(resource, before, values, now))
    await appendEvent(tx, principal, resource, 'updated', entity, now)
    return entity
  })
}

/** Deletes a record and, first, its nested children, each with its own event. */
async function deleteWithChildren(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  record: StoredRecord,
  now: string,
): Promise<void> {
  const id = record.entity.id as string
  // A read-only child (a webhook endpoint's deliveries) goes with its parent (ON DELETE CASCADE),
  // without an event of its own.
  for (const child of childrenOf(resource).filter((c) => c.writable)) {
    for (const childRecord of await ctx.store.records.children(child, id))
      await deleteWithChildren(ctx, principal, child, childRecord, now)
  }
  const blockers = await ctx.store.records.referencesTo(resource, id)
  if (blockers.length > 0) {
    throw new ApiError(
      'CONFLICT',
      `This ${resource.singular} is still referenced; delete or change the referencing records first.`,
      blockers.map((b) => ({ field: b.collection, message: `${b.field} refers to ${id}` })),
    )
  }
  await ctx.store.records.remove(resource, id)
  await appendEvent(ctx, principal, resource, 'deleted', record.entity, now)
}

export async function deleteRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  id: string,
  parent?: ParentRef,
  precondition?: Precondition,
): Promise<void> {
  if (!resource.writable) throw readOnly(resource)
  requireScope(principal, resource.scopes.write)
  await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store }
    const record = await loadRecord(tx, principal, resource, id, parent, true)
    checkPrecondition(precondition, record.entity)
    await deleteWithChildren(tx, principal, resource, record, isoNow(tx.clock()))
  })
}

/** Deletes every record matching `where` (guarded by `confirm` at the edge); returns how many. */
export async function bulkDeleteRecords(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  where: Condition[],
  search: string | undefined,
  parent?: ParentRef,
): Promise<number> {
  if (!resource.writable) throw readOnly(resource)
  requireScope(principal, resource.scopes.delete)
  return await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store }
    const conditions = [...where]
    if (parent) {
      await loadParent(tx, principal, resource, parent)
      conditions.push({ kind: 'compare', field: resource.parent!.field, op: 'eq', value: parent.id })
    }
    const now = isoNow(tx.clock())
    let deleted = 0
    for (;;) {
      const batch = await tx.store.records.page(resource, principal.orgId, {
        where: conditions,
        search,
        sort: [{ field: 'createdAt', descending: false }],
        limit: 500,
      })
      for (const entity of batch)
        await deleteWithChildren(tx, principal, resource, { orgId: principal.orgId, entity }, now)
      deleted += batch.length
      if (batch.length < 500) return deleted
    }
  })
}
