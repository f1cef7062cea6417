import { type ApiError, conflict } from '../../shared/errors.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { loadRecord } from './access.ts'
import { appendEvent } from './events.ts'
import { checkPrecondition, type Precondition } from './precondition.ts'
import { nothingToCheck, type PreparedWrite } from './prepared-write.ts'
import type { Entity } from './reads.ts'
import { authorizeWrite } from './writes.ts'

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
  return conflict(`This ${resource.singular} cannot ${action.name}: ${why}.`, [
    { field: action.field ?? 'state', message: `is ${shown(state)}; ${action.name} needs ${from}` },
  ])
}

/** What an action needs: a state change writes the record; the server's own may act on a read-only one. */
export function authorizeAction(principal: Principal, resource: Resource, action: Action): void {
  if (action.field === undefined) requireScope(principal, resource.scopes.write)
  else authorizeWrite(principal, resource)
}

/**
 * A declared action on one record (contract, "Actions"), prepared in two phases
 * (server/resources/prepared-write.ts): authorized now, applied in the transaction it is given.
 * `apply` moves the record's state field from one of the action's `from` states to its `to`
 * state and appends `{singular}.{past}` (`order.cancelled`); an action without a state field is
 * run by its resource's hook (`ResourceHooks.actions`), which records its event the same way.
 * Loading the record (404, 403 for another organization), `If-Match` (412), the state check (409)
 * and the change all happen in `apply`, on the locked record, and the change is itself
 * conditional on the state: of two concurrent `ship`s one succeeds and the other gets 409.
 */
export function prepareAction(
  principal: Principal,
  resource: Resource,
  action: Action,
  id: string,
  precondition?: Precondition,
): PreparedWrite<Entity> {
  authorizeAction(principal, resource, action)
  return {
    check: nothingToCheck,
    apply: async (tx) => {
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
    },
  }
}
