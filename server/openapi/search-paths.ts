import type { Schema } from '../../shared/schema/schema.ts'
import { searchExamples } from '../query/sql-examples.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs, TABULAR_CONTENT, TABULAR_HEADERS } from './headers.ts'
import type { JsonObject } from './json.ts'
import { CONDITIONAL_GET, header, PAGINATION, query, shapeParameters } from './parameters.ts'
import { type QueryField, queryOperation } from './query-operation.ts'

type PathItem = JsonObject

const SEARCH_PARAMETERS = [
  query('q', { type: 'string', maxLength: 200 }, 'Free text, searched in every searchable collection'),
  query('search', { type: 'string', maxLength: 200 }, 'Alias of q'),
  query('collection', { type: 'string' }, 'One collection, listed with its own parameters (and filter)'),
  query('filter', { type: 'string' }, 'A boolean filter expression on collection (docs/filter-grammar.md)'),
  query('sort', { type: 'string' }, 'created_at or updated_at, -key for descending'),
  ...PAGINATION,
  // Across collections (q) only fields applies; with collection, expand names that collection's relations.
  ...shapeParameters(['those of collection']),
]

/**
 * `/search`, and the stored queries and answers of QUERY, under a version's prefix; its examples
 * filter a collection of `schema`.
 */
export function searchPaths(
  schema: Schema,
  prefix: string,
  queryField: QueryField,
): Record<string, PathItem> {
  const examples = searchExamples(schema)
  const queryId = {
    name: 'id',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^qry_[0-9a-z]{26}$' },
    description: 'The stored query (the Location of a QUERY)',
  }
  const page = { $ref: '#/components/schemas/SearchPage' }
  const json = (description: string, headers: JsonObject) => ({
    description,
    headers,
    content: { 'application/json': { schema: page } },
  })
  const tagged = headerRefs('ETag', 'Last-Modified', 'Accept-Query')
  const properties = Object.fromEntries(
    SEARCH_PARAMETERS.map((p) => [p.name, { ...(p.schema as JsonObject), description: p.description }]),
  )
  const stored = headerRefs('ETag', 'Last-Modified', 'Location')
  const answer = {
    ...stored,
    'Content-Location': {
      description: 'This stored answer',
      required: true,
      schema: { type: 'string' },
    },
  }
  return {
    [`${prefix}/search`]: {
      get: {
        operationId: 'search',
        tags: ['search'],
        summary: 'Search every collection (q), or filter one (collection and filter)',
        parameters: [...SEARCH_PARAMETERS, ...CONDITIONAL_GET],
        responses: {
          '200': json('Hits ({collection, record}) or, with collection, records', tagged),
          '304': { description: 'Not modified', headers: tagged },
          ...errorRefs(400, 401, 403),
        },
      },
      [queryField]: queryOperation({
        operationId: 'querySearch',
        summary: 'Search with the query in the body',
        tags: ['search'],
        security: [{ oauth2: [] }],
        // With `collection`, a body takes that collection's parameters too.
        formSchema: { type: 'object', properties, additionalProperties: true },
        jsonSchema: { type: 'object', properties, additionalProperties: true },
        page,
        formExample: { q: 'mug', limit: 10 },
        jsonExample: examples.json,
        sqlExample: examples.sql,
        jsonPathExample: examples.jsonPath,
        nested: false,
        search: true,
      }),
    },
    [`${prefix}/queries/{id}`]: {
      parameters: [queryId],
      get: {
        operationId: 'runStoredQuery',
        tags: ['search'],
        summary: 'Run a stored query again, with the rights of the caller',
        parameters: [
          query('cursor', { type: 'string' }, 'The next page: pagination.nextCursor'),
          query('after', { type: 'string' }, 'Keyset: the id of the record the page starts after'),
          ...CONDITIONAL_GET,
        ],
        responses: {
          '200': {
            description: 'A page; by Accept, a stored query of a collection as CSV or NDJSON (docs/bulk.md)',
            headers: { ...headerRefs('ETag', 'Last-Modified'), ...TABULAR_HEADERS },
            content: { 'application/json': { schema: page }, ...TABULAR_CONTENT },
          },
          '304': { description: 'Not modified', headers: headerRefs('ETag', 'Last-Modified') },
          ...errorRefs(400, 401, 403, 404, 406),
        },
      },
      delete: {
        operationId: 'deleteStoredQuery',
        tags: ['search'],
        summary: 'Delete a stored query',
        responses: { '204': { description: 'Deleted' }, ...errorRefs(400, 401, 403, 404) },
      },
    },
    [`${prefix}/queries/{id}/results/{token}`]: {
      parameters: [
        queryId,
        {
          name: 'token',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'The capability in the Content-Location of a QUERY',
        },
      ],
      get: {
        operationId: 'getStoredResult',
        tags: ['search'],
        summary: 'Get the exact answer a QUERY gave (its Content-Location), for 10 minutes',
        parameters: [header('If-None-Match', 'Answer 304 when the ETag matches')],
        responses: {
          '200': {
            description: 'The stored answer, in the format it was sent',
            headers: { ...answer, ...TABULAR_HEADERS },
            content: { 'application/json': { schema: page }, ...TABULAR_CONTENT },
          },
          '304': { description: 'Not modified', headers: answer },
          ...errorRefs(400, 401, 403, 404),
        },
      },
    },
  }
}
