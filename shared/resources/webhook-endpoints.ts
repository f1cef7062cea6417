import { defineResource } from './define.ts'
import { boolean, enumeration, integer, list, reference, text, timestamp } from './fields.ts'

/**
 * Where the organization's events are POSTed (docs/webhooks.md): `url` (https; http to loopback
 * only under `serve --allow-http-webhooks`), the event types it wants (none: all), and whether it
 * is enabled. Its signing secret is never a field: it shows only in the answer to the create and
 * to `rotate-secret`.
 */
export const webhookEndpoints = defineResource({
  name: 'webhook-endpoints',
  singular: 'webhookEndpoint',
  prefix: 'whe',
  service: true,
  fields: {
    url: text({ max: 2000, format: 'uri', filter: 'eq' }),
    description: text({ max: 500, nullable: true }),
    eventTypes: list({ default: [] }),
    enabled: boolean({ default: true, filter: 'eq' }),
  },
  revealed: {
    secret: 'The signing secret (whsec_…): in the answer to the create and to rotate-secret only',
  },
  actions: {
    'rotate-secret': {
      past: 'secret_rotated',
      summary: 'Make a new signing secret',
      effect:
        'Makes a new signing secret and answers it once, as secret; for 24 hours the old one still signs alongside it.',
    },
    test: {
      past: 'tested',
      summary: 'Send a webhook.test event to the endpoint',
      effect: 'Queues a delivery of a webhook.test event to this endpoint only.',
    },
  },
})

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

/**
 * One event on its way to one endpoint: read-only, written by the delivery worker, and guarded by
 * the endpoint's scopes. `attempts` counts the POSTs made; a `failed` one can be retried by hand.
 */
export const deliveries = defineResource({
  name: 'deliveries',
  singular: 'delivery',
  prefix: 'whd',
  service: true,
  parent: { collection: 'webhook-endpoints', field: 'endpointId' },
  writable: false,
  scopesOf: 'webhook-endpoints',
  table: 'webhook_deliveries',
  changedWithoutEvents: true,
  fields: {
    endpointId: reference('webhook-endpoints', 'whe', { readOnly: true, filter: 'eq' }),
    eventId: text({ readOnly: true, filter: 'eq' }),
    eventType: text({ readOnly: true, filter: 'eq' }),
    status: enumeration(DELIVERY_STATUSES, { readOnly: true, filter: 'eq', sort: true }),
    attempts: integer({ readOnly: true, default: 0 }),
    lastResponseStatus: integer({ readOnly: true, nullable: true }),
    lastError: text({ readOnly: true, nullable: true, max: 500 }),
    nextAttemptAt: timestamp({ readOnly: true, nullable: true, sort: true }),
  },
  actions: {
    retry: {
      past: 'retried',
      summary: 'Try a delivery again',
      effect: 'Puts a failed delivery back to pending, due now; 409 when it is not failed.',
    },
  },
})
