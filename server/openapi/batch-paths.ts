import { MAX_OPERATIONS } from '../batch/body.ts'
import { REF_NAME } from '../batch/references.ts'
import type { ApiVersion } from '../versions/versions.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs } from './headers.ts'
import type { JsonObject } from './json.ts'
import { header } from './parameters.ts'

const OPERATION: JsonObject = {
  type: 'object',
  required: ['method', 'path'],
  additionalProperties: false,
  properties: {
    method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] },
    path: {
      type: 'string',
      pattern: '^/api/v2/[^?#]*$',
      maxLength: 2048,
      description:
        'A write path of this version: a collection or a nested one (POST), a record (PUT, PATCH, DELETE), an action (POST). An id may be a reference: /api/v2/books/${b.id}/lend',
    },
    body: {
      description:
        'The request body its REST request would send, in this version’s shape (none for DELETE; none or {} for an action); any string in it may hold ${ref.field} references',
    },
    ref: {
      type: 'string',
      pattern: REF_NAME.source,
      description: 'Names this operation’s result for later operations (${ref.field}); unique in the batch',
    },
    ifMatch: {
      type: 'string',
      description:
        'If-Match of this operation (PUT, PATCH, DELETE, an action): 412 when the record’s ETag differs',
    },
  },
}

const RESULT: JsonObject = {
  type: 'object',
  required: ['status', 'body'],
  properties: {
    status: {
      type: 'integer',
      description: 'What the operation’s REST request would answer: 201, 200 or 204',
    },
    body: {
      anyOf: [{ type: 'object' }, { type: 'null' }],
      description: 'The record as its REST request would answer it (v2 shape); null for a DELETE',
    },
  },
}

/**
 * `POST /api/v2/batch` (docs/bulk.md, "Atomic batches"), in the current version's document only:
 * a deprecated version takes no new endpoints.
 */
export function batchPaths(version: ApiVersion): Record<string, JsonObject> {
  if (version.status !== 'current') return {}
  return {
    [`${version.prefix}/batch`]: {
      post: {
        operationId: 'runBatch',
        tags: ['service'],
        summary: `Run up to ${MAX_OPERATIONS} writes in one transaction, all or nothing`,
        description:
          'Each operation is authorized and validated as if sent alone (its collection’s write scope, the role, the organization). ' +
          'A later operation may use an earlier result as ${ref.field}. On the first failure the answer is that operation’s ' +
          'status and error, its details naming the place (operations[3].body.pages), and nothing is written. Conventions: docs/bulk.md.',
        parameters: [header('Idempotency-Key', 'Replays the first answer for the same key and batch (24 h)')],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['operations'],
                additionalProperties: false,
                properties: {
                  operations: { type: 'array', minItems: 1, maxItems: MAX_OPERATIONS, items: OPERATION },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'Every operation applied, its answer in order (or, with Idempotent-Replayed, the first answer for this Idempotency-Key)',
            headers: headerRefs('Idempotent-Replayed'),
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['results'],
                  properties: { results: { type: 'array', items: RESULT } },
                },
              },
            },
          },
          ...errorRefs(400, 401, 403, 404, 409, 412, 415, 422),
        },
      },
    },
  }
}
