import { newId } from '../../shared/ids.ts'
import { events } from '../../shared/resources/events.ts'
import type { Action, Resource } from '../../shared/resources/index.ts'
import type { Tx } from '../store/store.ts'

/** What happened to the record: a create, update or delete, or an action's past tense (`cancelled`). */
export type ChangeKind = 'created' | 'updated' | 'deleted' | Action['past']

/** Appends `<resource>.<change>` to the organization's event log; call inside the change's transaction. */
export async function appendEvent(
  tx: Tx,
  orgId: string,
  resource: Resource,
  change: ChangeKind,
  entity: Record<string, unknown>,
  now: string,
): Promise<void> {
  await tx.events.append({
    id: newId(events.prefix),
    orgId,
    now,
    type: `${resource.eventName}.${change}`,
    resource: resource.name,
    resourceId: entity.id,
    data: entity,
  })
}
