import { ApiError } from '../../shared/errors.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import type { Principal } from '../auth/tokens.ts'
import { loadRecord } from './access.ts'
import type { EngineContext } from './context.ts'
import { appendEvent } from './events.ts'
import { checkPrecondition, type Precondition } from './precondition.ts'
import type { Entity } from './reads.ts'
import { authorizeAction } from './writes.ts'

const shown = (state: unknown) => (typeof state === 'string' ? state : JSON.stringify(state))

/**
 * 409: the record's state is not one the action starts from; a detail names the current state.
 * A flag reads as what the record is ("This post cannot publish: it is already published."), any
 * other state by its value ("... its status is cancelled, and ship needs paid.").
 */
function notFromHere(resource: Resource, action: Action, state: unknown): ApiError {
  const from = (action.from ?? []).map(shown).join(' or ')
  const why =
    typeof state === 'boolean' && action.field
      ? `it is ${state ? (state === action.to ? 'already ' : '') : 'not '}${action.field}`
      : `its ${action.field} is ${shown(state)}, and ${action.name} needs ${from}`
  return new ApiError('CONFLICT', `This ${resource.singular} cannot ${action.name}: ${why}.`, [
    { field: action.field ?? 'state', message: `is ${shown(state)}; ${action.name} needs ${from}` },
  ])
}

/**
 * Runs a declared action on one record (contract, "Actions"): moves its state field from one of the
 * action's `from` states to its `to` state and appends `{singular}.{past}` (`order.cancelled`).
 * An action without a state field is run by its resource's hook (`ResourceHooks` in server/resources/context.ts) in the
 * same transaction, and records its event the same way.
 * Loading the record (404, 403 for another organization), `If-Match` (412), the state check (409)
 * and the change happen in one transaction, on the locked record, and the change is itself
 * conditional on the state: of two concurrent `ship`s one succeeds and the other gets 409.
 */
export async function runAction(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  action: Action,
  id: string,
  precondition?: Precondition,
): Promise<Entity> {
  authorizeAction(principal, resource, action)
  return await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store }
    const before = (await loadRecord(tx, principal, resource, id, undefined, true)).entity
    checkPrecondition(precondition, before)
    if (action.field === undefined || action.from === undefined) {
      const run = tx.hooks?.get(resource.name)?.actions?.[action.name]
      if (!run) throw new Error(`${resource.name}: no handler for the action ${action.name}`)
      const now = isoNow(tx.clock())
      const outcome = await run(tx, principal, before, now)
      await appendEvent(tx, principal, resource, action.past, outcome.entity, now)
      return outcome.revealed ? { ...outcome.entity, ...outcome.revealed } : outcome.entity
    }
    if (!action.from.includes(before[action.field] as string | boolean))
      throw notFromHere(resource, action, before[action.field])
    const now = isoNow(tx.clock())
    const entity = await tx.store.records.transition(resource, before, action, now)
    if (!entity) {
      const current = await tx.store.records.find(resource, id)
      throw notFromHere(resource, action, current?.entity[action.field])
    }
    await appendEvent(tx, principal, resource, action.past, entity, now)
    return entity
  })
}
