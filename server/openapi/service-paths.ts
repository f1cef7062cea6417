import { GRANT_TYPES } from '../store/types.ts'
import type { JsonObject } from './json.ts'

type PathItem = JsonObject

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]))
const jsonBody = (schema: JsonObject, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
export const query = (name: string, schema: JsonObject, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  schema,
  description,
})
const form = (properties: Record<string, JsonObject>, required: string[] = []) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } },
})
const str = (description: string): JsonObject => ({ type: 'string', description })
const OAUTH_ERROR = jsonBody(
  {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  },
  'RFC 6749 §5.2 error',
)
const CLIENT_AUTH = {
  client_id: str('The client (client_secret_post or a public client); or HTTP Basic'),
  client_secret: str('client_secret_post; or HTTP Basic'),
}
const QUERY_TYPES = [
  'application/x-www-form-urlencoded',
  'application/json',
  'application/sql',
  'application/jsonpath',
]

/**
 * The HTTP QUERY method (RFC 10008) has no place in OpenAPI 3.1; resources that take it say so
 * in this extension (docs/query.md).
 */
export const X_QUERY = {
  summary: 'QUERY: the same read with the query in the body',
  requestContentTypes: QUERY_TYPES,
  responses: ['200', '304', '400', '401', '403', '413', '415', '422', '429', '503'],
  headers: ['Location', 'Content-Location', 'Accept-Query'],
}

/** The pagination parameters every paginated list takes (docs/api.md). */
export const PAGINATION: JsonObject[] = [
  query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
  query('cursor', { type: 'string' }, 'Opaque cursor from pagination.nextCursor'),
  query('after', { type: 'string' }, 'Keyset: the id of the record the page starts after'),
  query('page', { type: 'integer', minimum: 1 }, 'Page number (page style)'),
  query('per_page', { type: 'integer', minimum: 1, maximum: 100 }, 'Page size (page style)'),
  query('offset', { type: 'integer', minimum: 0 }, 'Offset (offset style)'),
  query('include_total', { type: 'boolean' }, 'Count the matching records'),
]

/** `/search` and the stored queries and results of QUERY, under a version's prefix. */
export function searchPaths(prefix: string): Record<string, PathItem> {
  const queryId = {
    name: 'id',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^qry_[0-9a-z]{26}$' },
  }
  const page = { $ref: '#/components/schemas/SearchPage' }
  return {
    [`${prefix}/search`]: {
      'x-query': X_QUERY,
      get: {
        operationId: 'search',
        tags: ['search'],
        summary: 'Full-text search across collections (q), or one collection with a filter expression',
        parameters: [
          query(
            'q',
            { type: 'string', maxLength: 200 },
            'Free text, searched in every searchable collection',
          ),
          query('search', { type: 'string', maxLength: 200 }, 'Alias of q'),
          query('collection', { type: 'string' }, 'One collection, listed with its own parameters'),
          query('filter', { type: 'string' }, 'Boolean filter expression (docs/filter-grammar.md)'),
          query('sort', { type: 'string' }, 'created_at or updated_at, - for descending'),
          ...PAGINATION,
        ],
        responses: {
          '200': jsonBody(page, 'Hits ({collection, record}) or, with collection, records'),
          '304': { description: 'Not modified' },
          ...errors(400, 401, 403),
        },
      },
    },
    [`${prefix}/queries/{id}`]: {
      parameters: [queryId],
      get: {
        operationId: 'runStoredQuery',
        tags: ['search'],
        summary: 'Runs a stored query (the Location of a QUERY) again',
        parameters: [
          query('cursor', { type: 'string' }, 'Next page'),
          query('after', { type: 'string' }, 'Keyset'),
        ],
        responses: {
          '200': jsonBody(page, 'A page'),
          '304': { description: 'Not modified' },
          ...errors(400, 401, 403, 404),
        },
      },
      delete: {
        operationId: 'deleteStoredQuery',
        tags: ['search'],
        responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
      },
    },
    [`${prefix}/queries/{id}/results/{token}`]: {
      parameters: [queryId, { name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getStoredResult',
        tags: ['search'],
        summary: 'The exact response a QUERY gave (its Content-Location), for 10 minutes',
        responses: {
          '200': jsonBody(page, 'The stored response'),
          '304': { description: 'Not modified' },
          ...errors(401, 403, 404),
        },
      },
    },
  }
}

const status = (description: string) =>
  jsonBody(
    {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string' }, reason: { type: 'string' } },
    },
    description,
  )

/** Paths outside the versions: the version list, health, OAuth, the OpenAPI documents. */
export function servicePaths(): Record<string, PathItem> {
  const open = [] as JsonObject[]
  const token = {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: { type: 'string' },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer' },
      refresh_token: { type: 'string' },
      scope: { type: 'string' },
    },
  }
  const path = { type: 'string' }
  return {
    '/': {
      get: {
        operationId: 'serviceIndex',
        tags: ['service'],
        security: open,
        summary:
          'Where to start: the paths of the docs, the versions, the OpenAPI documents and the OAuth metadata',
        responses: {
          '200': jsonBody(
            {
              type: 'object',
              required: ['name', 'links'],
              properties: {
                name: { type: 'string' },
                links: {
                  type: 'object',
                  required: ['docs', 'versions', 'openapi', 'oauthMetadata'],
                  properties: {
                    docs: path,
                    versions: path,
                    api: path,
                    openapi: { type: 'object', additionalProperties: path },
                    graphql: path,
                    oauthMetadata: path,
                    jwks: path,
                    health: path,
                  },
                },
              },
            },
            'The service index (paths on this origin)',
          ),
        },
      },
    },
    '/api/versions': {
      get: {
        operationId: 'listVersions',
        tags: ['service'],
        security: open,
        summary: 'The live API versions with their status, sunset date and changes',
        responses: { '200': jsonBody({ $ref: '#/components/schemas/VersionList' }, 'Every live version') },
      },
    },
    '/healthz': {
      get: {
        operationId: 'liveness',
        tags: ['service'],
        security: open,
        responses: { '200': status('The process answers') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readiness',
        tags: ['service'],
        security: open,
        responses: {
          '200': status('Ready'),
          '503': status('The database does not answer, or shutting down'),
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'token',
        tags: ['oauth'],
        security: open,
        summary: 'Token endpoint (RFC 6749 §3.2)',
        requestBody: form(
          {
            grant_type: { type: 'string', enum: [...GRANT_TYPES] },
            code: str('authorization_code'),
            redirect_uri: str('authorization_code'),
            code_verifier: str('authorization_code (PKCE, 43 to 128 characters)'),
            refresh_token: str('refresh_token'),
            device_code: str('device_code grant'),
            scope: str('Space-separated scopes'),
            ...CLIENT_AUTH,
          },
          ['grant_type'],
        ),
        responses: {
          '200': jsonBody(token, 'Tokens'),
          '400': OAUTH_ERROR,
          '401': OAUTH_ERROR,
          ...errors(413, 429),
        },
      },
    },
    '/oauth/authorize': {
      get: {
        operationId: 'authorize',
        tags: ['oauth'],
        security: open,
        summary: 'Authorization endpoint: the login and consent pages (HTML)',
        parameters: [
          query('response_type', { type: 'string', enum: ['code'] }, 'code', true),
          query('client_id', { type: 'string' }, 'The client', true),
          query('redirect_uri', { type: 'string' }, 'A registered redirect URI', true),
          query('scope', { type: 'string' }, 'Space-separated scopes'),
          query('state', { type: 'string' }, 'Anti-CSRF value, returned as is'),
          query('code_challenge', { type: 'string' }, 'BASE64URL(SHA-256(code_verifier))'),
          query('code_challenge_method', { type: 'string', enum: ['S256'] }, 'S256'),
        ],
        responses: {
          '200': { description: 'The login or consent page', content: { 'text/html': {} } },
          '303': { description: 'Back to the client with code (or error), state and iss' },
          '400': {
            description: 'Unknown client or redirect URI (an error page, no redirect)',
            content: { 'text/html': {} },
          },
          ...errors(429),
        },
      },
    },
    '/oauth/device_authorization': {
      post: {
        operationId: 'deviceAuthorization',
        tags: ['oauth'],
        security: open,
        summary: 'Starts a device authorization (RFC 8628 §3.1)',
        requestBody: form({ scope: str('Space-separated scopes'), ...CLIENT_AUTH }, ['client_id']),
        responses: {
          '200': jsonBody(
            {
              type: 'object',
              properties: {
                device_code: { type: 'string' },
                user_code: { type: 'string' },
                verification_uri: { type: 'string' },
                verification_uri_complete: { type: 'string' },
                expires_in: { type: 'integer' },
                interval: { type: 'integer' },
              },
            },
            'The codes',
          ),
          '400': OAUTH_ERROR,
          '401': OAUTH_ERROR,
          ...errors(429),
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'revoke',
        tags: ['oauth'],
        security: open,
        summary: 'Revocation (RFC 7009)',
        requestBody: form(
          { token: str('The token'), token_type_hint: str('access_token or refresh_token'), ...CLIENT_AUTH },
          ['token'],
        ),
        responses: {
          '200': { description: 'Revoked (or nothing to revoke)' },
          '400': OAUTH_ERROR,
          '401': OAUTH_ERROR,
          ...errors(429),
        },
      },
    },
    '/oauth/introspect': {
      post: {
        operationId: 'introspect',
        tags: ['oauth'],
        security: open,
        summary: 'Introspection (RFC 7662), confidential clients only',
        requestBody: form(
          { token: str('The token'), token_type_hint: str('access_token or refresh_token'), ...CLIENT_AUTH },
          ['token'],
        ),
        responses: {
          '200': jsonBody(
            { type: 'object', required: ['active'], properties: { active: { type: 'boolean' } } },
            'Token details, or {"active": false}',
          ),
          '400': OAUTH_ERROR,
          '401': OAUTH_ERROR,
          ...errors(429),
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        operationId: 'authorizationServerMetadata',
        tags: ['oauth'],
        security: open,
        responses: { '200': jsonBody({ type: 'object' }, 'RFC 8414 metadata') },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'jwks',
        tags: ['oauth'],
        security: open,
        responses: { '200': jsonBody({ type: 'object' }, 'The public signing keys (RFC 7517)') },
      },
    },
  }
}
