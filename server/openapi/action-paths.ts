import type { Action, Resource } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs } from './headers.ts'
import type { JsonObject } from './json.ts'
import { header } from './parameters.ts'
import { names } from './schemas.ts'

const shown = (states: readonly (string | boolean)[]) => states.map(String).join(' or ')

/** `cancelOrder`, `rotateSecretWebhookEndpoint`: the operation id of an action. */
const operationId = (resource: Resource, action: Action) =>
  `${action.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}${pascal(resource.singular)}`

/**
 * The path item of a declared action, `POST /{collection}/{id}/{action}` (docs/api.md, "Actions"):
 * no body or `{}`, 200 with the changed record, 409 when the record's state does not allow it.
 */
export function actionItem(resource: Resource, action: Action): JsonObject {
  return {
    post: {
      operationId: operationId(resource, action),
      tags: [resource.name],
      summary: action.summary,
      description:
        action.field === undefined
          ? `${action.effect} Records the event ${resource.eventName}.${action.past}. Takes no body, or {}.`
          : `Sets ${action.field} to ${String(action.to)} when it is ${shown(action.from ?? [])}, and records the ` +
            `event ${resource.eventName}.${action.past}; otherwise 409 with a detail naming the current ` +
            `${action.field}. Takes no body, or {}.`,
      security: [{ oauth2: [resource.scopes.write] }],
      parameters: [
        header('If-Match', 'Only act if the record still has this ETag (else 412)'),
        header('Idempotency-Key', 'Replays the first answer for the same key and body (24 h)'),
      ],
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: { type: 'object', maxProperties: 0, description: 'Nothing, or {}' },
            example: {},
          },
        },
      },
      responses: {
        '200': {
          description:
            'The changed record (or, with Idempotent-Replayed, the first answer for this Idempotency-Key)',
          headers: headerRefs('ETag', 'Last-Modified', 'Idempotent-Replayed'),
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${names(resource).record}` } },
          },
        },
        ...errorRefs(400, 401, 403, 404, 409, 412, 415, 422),
      },
    },
  }
}
