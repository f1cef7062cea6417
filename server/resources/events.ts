import { newId } from '../../shared/ids.ts'
import { type Actor, events } from '../../shared/resources/events.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import type { EngineContext } from './context.ts'

/** What happened to the record: a create, update or delete, or an action's past tense (`cancelled`). */
type ChangeKind = 'created' | 'updated' | 'deleted' | Action['past']

/**
 * Who a principal is in the event log: the user a token was issued for, the client of a
 * client-credentials token, or `{type: 'system', id: 'api-server'}` for the admin commands.
 */
export function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case 'user':
      return { type: 'user', id: principal.subject }
    case 'client':
      return { type: 'client', id: principal.clientId }
    case 'system':
      return { type: 'system', id: principal.subject }
  }
}

/**
 * Appends `<resource>.<change>` to the organization's event log, with the principal as its actor
 * and the id of the request being served (null outside a request); call inside the change's
 * transaction, with the write's context.
 */
export async function appendEvent(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  change: ChangeKind,
  entity: Record<string, unknown>,
  now: string,
): Promise<void> {
  await ctx.store.events.append({
    id: newId(events.prefix),
    orgId: principal.orgId,
    now,
    type: `${resource.eventName}.${change}`,
    resource: resource.name,
    resourceId: entity.id,
    data: entity,
    actor: actorOf(principal),
    requestId: ctx.requestId?.() ?? null,
  })
}
