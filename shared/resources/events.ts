import { defineResource } from './define.ts'
import { json, text } from './fields.ts'

/** The append-only event log: one record per create, update and delete, written in the same transaction. */
export const events = defineResource({
  name: 'events',
  singular: 'event',
  prefix: 'evt',
  writable: false,
  fields: {
    type: text({ readOnly: true, filter: 'eq', sort: true }),
    resource: text({ readOnly: true, filter: 'eq' }),
    resourceId: text({ readOnly: true, filter: 'eq' }),
    data: json({ readOnly: true }),
  },
})
