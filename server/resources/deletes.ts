import { conflict } from '../../shared/errors.ts'
import type { Condition } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import type { StoredRecord } from '../store/types.ts'
import { loadParent, loadRecord } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { appendEvent } from './events.ts'
import { checkPrecondition, type Precondition } from './precondition.ts'
import { nothingToCheck, type PreparedWrite } from './prepared-write.ts'
import { authorizeWrite, readOnly } from './writes.ts'

interface Doomed {
  resource: Resource
  record: StoredRecord
}

/** A record's nested children, depth first and oldest first, and then the record. */
async function withChildren(ctx: EngineContext, resource: Resource, record: StoredRecord): Promise<Doomed[]> {
  const doomed: Doomed[] = []
  // A read-only child (a webhook endpoint's deliveries) goes with its parent (ON DELETE CASCADE),
  // without an event of its own.
  for (const child of ctx.schema.childrenOf(resource).filter((c) => c.writable))
    for (const childRecord of await ctx.store.records.children(child, record.entity.id as string))
      doomed.push(...(await withChildren(ctx, child, childRecord)))
  doomed.push({ resource, record })
  return doomed
}

/** Whether `a` names `b` in a field (its parent's, or a reference), other than itself. */
const names = (a: Doomed, b: Doomed) =>
  a !== b &&
  Object.entries(a.resource.fields).some(
    ([field, f]) => f.references === b.resource.name && a.record.entity[field] === b.record.entity.id,
  )

/**
 * Deletes a record and its nested children, each with its own event: 409 while a record outside
 * them references one of them; otherwise each goes after every one of them that references it
 * (children before parents, a referencing sibling before the sibling it names).
 */
async function deleteWithChildren(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  record: StoredRecord,
  now: string,
): Promise<void> {
  const doomed = await withChildren(ctx, resource, record)
  const ids = new Set(doomed.map((d) => d.record.entity.id as string))
  for (const d of doomed) {
    const id = d.record.entity.id as string
    const blockers = await ctx.store.records.referencesTo(d.resource, id, ids)
    if (blockers.length > 0) {
      throw conflict(
        `This ${resource.singular} is still referenced; delete or change the referencing records first.`,
        { details: blockers.map((b) => ({ field: b.collection, message: `${b.field} refers to ${id}` })) },
      )
    }
  }
  const remaining = [...doomed]
  while (remaining.length > 0) {
    // References among nullable fields may form a cycle: then the first child goes first.
    const next = remaining.findIndex((d) => !remaining.some((other) => names(other, d)))
    const [d] = remaining.splice(Math.max(next, 0), 1)
    await ctx.store.records.remove(d!.resource, d!.record.entity.id as string)
    await appendEvent(ctx, principal, d!.resource, 'deleted', d!.record.entity, now)
  }
}

/**
 * DELETE of one record (server/resources/prepared-write.ts): authorized now; `apply` loads and
 * locks the record, compares `If-Match` with it, and deletes it with its nested children.
 */
export function prepareDelete(
  principal: Principal,
  resource: Resource,
  id: string,
  parent?: ParentRef,
  precondition?: Precondition,
): PreparedWrite<void> {
  authorizeWrite(principal, resource)
  return {
    check: nothingToCheck,
    apply: async (tx) => {
      const record = await loadRecord(tx, principal, resource, id, parent, true)
      checkPrecondition(precondition, record.entity)
      await deleteWithChildren(tx, principal, resource, record, isoNow(tx.clock()))
    },
  }
}

/**
 * Bulk DELETE of every record matching `where` (guarded by `confirm` at the edge): needs the
 * collection's `delete:` scope; `apply` answers how many it deleted.
 */
export function prepareBulkDelete(
  principal: Principal,
  resource: Resource,
  where: Condition[],
  search: string | undefined,
  parent?: ParentRef,
): PreparedWrite<number> {
  if (!resource.writable) throw readOnly(resource)
  requireScope(principal, resource.scopes.delete)
  return {
    check: nothingToCheck,
    apply: async (tx) => {
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
    },
  }
}
