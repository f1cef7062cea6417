import { MAX_QUERY_BODY_BYTES } from '../query/media.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs, inlineHeader, TABULAR_CONTENT, TABULAR_HEADERS } from './headers.ts'
import type { JsonObject } from './json.ts'
import { CONDITIONAL_GET } from './parameters.ts'

/**
 * Where a path item holds its QUERY operation: OpenAPI 3.2 has the `query` field; 3.1 has none,
 * and `x-query` holding an Operation Object is the convention tools that know QUERY read there.
 */
export type QueryField = 'query' | 'x-query'

interface QueryOperationOptions {
  operationId: string
  summary: string
  tags: string[]
  security: JsonObject[]
  /** The schemas of form and JSON bodies: the GET's query parameters, by name. */
  formSchema: JsonObject
  jsonSchema: JsonObject
  /** The 200's body. */
  page: JsonObject
  /** Example bodies, one per media type (test/openapi/responses.test.ts runs each). */
  formExample: JsonObject
  jsonExample: JsonObject
  /** Absent where the resource takes only form and JSON bodies (a collection's aggregates). */
  sqlExample?: string
  jsonPathExample?: string
  /** A nested collection answers 404 for a parent that does not exist. */
  nested: boolean
  /** `/search`, which answers JSON whatever Accept says; a collection answers CSV and NDJSON too. */
  search?: boolean
}

/**
 * QUERY (RFC 10008) on a collection or `/search`: the same read as the GET, with the query in the
 * body in one of four media types (docs/query.md), answering the GET's envelope plus `Location`
 * (the stored query) and `Content-Location` (this answer, kept 10 minutes).
 */
export function queryOperation(options: QueryOperationOptions): JsonObject {
  const stored = headerRefs('ETag', 'Last-Modified', 'Location', 'Accept-Query')
  const { sqlExample, jsonPathExample } = options
  return {
    operationId: options.operationId,
    tags: options.tags,
    summary: options.summary,
    description:
      `The URL takes no parameters (the body is the query)${jsonPathExample === undefined ? '' : ', except `limit` with an application/jsonpath body'}. ` +
      `Bodies are UTF-8, without a content coding, at most ${MAX_QUERY_BODY_BYTES} bytes. See docs/query.md.`,
    security: options.security,
    parameters: [
      ...(jsonPathExample === undefined
        ? []
        : [
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
              description: 'Page size of an application/jsonpath query, which has no syntax for it',
            },
          ]),
      ...CONDITIONAL_GET,
    ],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: options.formSchema,
          example: options.formExample,
        },
        'application/json': {
          schema: options.jsonSchema,
          example: options.jsonExample,
        },
        ...(sqlExample === undefined
          ? {}
          : {
              'application/sql': {
                schema: {
                  type: 'string',
                  maxLength: 10_000,
                  description:
                    'One select statement of the subset in docs/query.md: records, or counts and sums per group with GROUP BY, HAVING and count(*), sum, avg, min, max (docs/bulk.md)',
                },
                example: sqlExample,
              },
            }),
        ...(jsonPathExample === undefined
          ? {}
          : {
              'application/jsonpath': {
                schema: { type: 'string', description: 'An RFC 9535 query over the collection as an array' },
                example: jsonPathExample,
              },
            }),
      },
    },
    responses: {
      '200': {
        description:
          'A page, as the GET answers it; with a SQL column list, records hold only those columns; an SQL body with GROUP BY, HAVING or an aggregate answers groups, as the aggregates do',
        headers: {
          ...stored,
          'Content-Location': inlineHeader(
            'This very answer, kept for GET 10 minutes (unless it is larger than 16 MiB)',
            false,
          ),
          ...(options.search ? {} : TABULAR_HEADERS),
        },
        content: { 'application/json': { schema: options.page }, ...(options.search ? {} : TABULAR_CONTENT) },
      },
      '304': { description: 'Not modified', headers: stored },
      ...errorRefs(
        400,
        401,
        403,
        ...(options.nested ? [404] : []),
        ...(options.search ? [] : [406]),
        415,
        422,
        503,
      ),
    },
  }
}
