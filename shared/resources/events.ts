import { defineResource } from './define.ts'
import { enumeration, json, text } from './fields.ts'

/** Who made a change: a user's token, a client-credentials token, or the system (admin commands). */
export const ACTOR_TYPES = ['user', 'client', 'system'] as const

/** The `actor` of an event: `{type: 'user', id: 'usr_…'}`, `{type: 'client', id: <client id>}`. */
export interface Actor {
  type: (typeof ACTOR_TYPES)[number]
  id: string
}

/**
 * The append-only event log: one record per create, update and delete, written in the same
 * transaction, with who made it (`actor`) and in which request (`requestId`, its X-Request-Id).
 * Events appended before these were recorded carry null for both.
 */
export const events = defineResource({
  name: 'events',
  singular: 'event',
  prefix: 'evt',
  service: true,
  writable: false,
  fields: {
    type: text({ readOnly: true, filter: 'eq', sort: true }),
    resource: text({ readOnly: true, filter: 'eq' }),
    resourceId: text({ readOnly: true, filter: 'eq' }),
    data: json({ readOnly: true }),
    actorType: enumeration(ACTOR_TYPES, { readOnly: true, nullable: true }),
    actorId: text({ readOnly: true, nullable: true, filter: 'eq' }),
    requestId: text({ readOnly: true, nullable: true }),
  },
  objects: { actor: { type: 'actorType', id: 'actorId' } },
})
