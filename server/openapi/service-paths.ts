import { GRANT_TYPES } from '../store/types.ts'
import { headerRefs, inlineHeader } from './headers.ts'
import type { JsonObject } from './json.ts'
import { CONDITIONAL_GET, query } from './parameters.ts'

type PathItem = JsonObject

const jsonBody = (schema: JsonObject, description: string, headers?: JsonObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
})
const form = (properties: Record<string, JsonObject>, required: string[] = []) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } },
})
const str = (description: string): JsonObject => ({ type: 'string', description })
const OAUTH_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
}
const OAUTH_ERROR = jsonBody(OAUTH_ERROR_SCHEMA, 'RFC 6749 §5.2 error')
/** RFC 6749 §5.2: a client that tried HTTP Basic gets the Basic challenge. */
const OAUTH_CLIENT_ERROR = jsonBody(OAUTH_ERROR_SCHEMA, 'RFC 6749 §5.2 error: invalid_client', {
  'WWW-Authenticate': inlineHeader(
    'The Basic challenge, when the client authenticated with HTTP Basic',
    false,
  ),
})
const CONTRACT_ERROR = { $ref: '#/components/schemas/Error' }
/**
 * A client locked out after failed authentications (RFC 6749 §5.2 temporarily_unavailable,
 * server/oauth/client-auth.ts), or the request quota spent (the edge's contract error body).
 */
const OAUTH_THROTTLED = jsonBody(
  { anyOf: [OAUTH_ERROR_SCHEMA, CONTRACT_ERROR] },
  'Too many failed client authentications (RFC 6749 §5.2 error: temporarily_unavailable), or the rate limit is spent (RATE_LIMITED); try again after Retry-After seconds',
  headerRefs('Retry-After'),
)
const OAUTH_ERRORS = {
  '400': OAUTH_ERROR,
  '401': OAUTH_CLIENT_ERROR,
  // A body that stops arriving, in OAuth's words (server/oauth/form.ts); 413 for a Content-Length
  // over the limit comes from the edge, in the contract's shape, before the endpoint runs.
  '408': jsonBody(OAUTH_ERROR_SCHEMA, 'RFC 6749 §5.2 error: invalid_request, the body stopped arriving'),
  '429': OAUTH_THROTTLED,
  '500': jsonBody(OAUTH_ERROR_SCHEMA, 'RFC 6749 §5.2 error: server_error'),
}
const CLIENT_AUTH = {
  client_id: str('The client (client_secret_post or a public client); or HTTP Basic'),
  client_secret: str('client_secret_post; or HTTP Basic'),
}
const HTML = { 'text/html': { schema: { type: 'string' } } }
const page = (description: string, cookies = false) => ({
  description,
  ...(cookies
    ? {
        headers: {
          'Set-Cookie': inlineHeader('The form-protection cookie, when the browser has none', false),
        },
      }
    : {}),
  content: HTML,
})
const seeOther = (description: string) => ({
  description,
  headers: {
    Location: inlineHeader('Where the browser goes next', true),
    'Set-Cookie': inlineHeader('The login session, set or cleared', false),
  },
})

const statusSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' }, reason: { type: 'string' } },
}
const status = (description: string) => jsonBody(statusSchema, description)

/** Paths outside the versions (the index, the version list, health, OAuth), and the version's document. */
export function servicePaths(prefix: string): Record<string, PathItem> {
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
    [`${prefix}/openapi.json`]: {
      get: {
        operationId: 'openApiDocument',
        tags: ['service'],
        security: open,
        summary: 'Get this OpenAPI document',
        description:
          'Tags carry x-collection (singular, id prefix, parent, sort and search fields) for clients that learn the collections from it, as the CLI does; revalidate with If-None-Match.',
        parameters: CONDITIONAL_GET,
        responses: {
          '200': jsonBody(
            { type: 'object' },
            'The OpenAPI document of this version',
            headerRefs('ETag', 'Last-Modified'),
          ),
          '304': { description: 'Not modified', headers: headerRefs('ETag', 'Last-Modified') },
        },
      },
    },
    '/api/versions': {
      get: {
        operationId: 'listVersions',
        tags: ['service'],
        security: open,
        summary: 'List the live API versions with their status, sunset date and changes',
        responses: { '200': jsonBody({ $ref: '#/components/schemas/VersionList' }, 'Every live version') },
      },
    },
    '/healthz': {
      get: {
        operationId: 'liveness',
        tags: ['service'],
        security: open,
        summary: 'Check that the process answers (liveness)',
        responses: { '200': status('The process answers') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readiness',
        tags: ['service'],
        security: open,
        summary: 'Check that the service can serve: the database answers and it is not shutting down',
        responses: {
          '200': status('Ready'),
          // A server still starting answers every path with the contract's 503 (server/serve.ts).
          '503': jsonBody(
            { anyOf: [statusSchema, CONTRACT_ERROR] },
            'The database (or Redis) does not answer, or the server is shutting down; or it is still starting (UNAVAILABLE, with Retry-After)',
            { 'Retry-After': inlineHeader('Seconds to wait, while the server is starting', false) },
          ),
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'token',
        tags: ['oauth'],
        security: open,
        summary: 'Get tokens (the token endpoint, RFC 6749 §3.2)',
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
        responses: { '200': jsonBody(token, 'Tokens'), ...OAUTH_ERRORS },
      },
    },
    '/oauth/authorize': {
      get: {
        operationId: 'authorize',
        tags: ['oauth'],
        security: open,
        summary: 'Start an authorization (the login and consent pages, HTML)',
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
          '200': page('The login or consent page', true),
          '303': seeOther('Back to the client with code (or error), state and iss'),
          '400': page('Unknown client or redirect URI (an error page, no redirect)'),
          '500': page('The server could not complete the request (an error page)'),
        },
      },
      post: {
        operationId: 'submitAuthorization',
        tags: ['oauth'],
        security: open,
        summary: 'Submit the login or consent form of the authorization pages (HTML)',
        requestBody: form(
          {
            request: str('The signed authorization request the page carries'),
            csrf: str('The form-protection value, matching its cookie'),
            step: str('Which form: login, choose (an account), switch (log out) or consent'),
            email: str('login'),
            password: str('login'),
            accounts: str('choose: the signed list of accounts offered'),
            account: str('choose: the user chosen'),
            decision: { type: 'string', enum: ['allow', 'deny'], description: 'consent' },
          },
          ['request', 'csrf', 'step'],
        ),
        responses: {
          '200': page('The page again, with what to correct', true),
          '303': seeOther('The next page, or back to the client with code (or error), state and iss'),
          '400': page('The page has expired, or the step is unknown'),
          '403': page('The form did not come from this site'),
          // The login throttle's page (server/oauth/interaction.ts), or the edge's quota in JSON.
          '429': {
            description:
              'Too many failed sign-ins from this address (a page saying when to try again), or the rate limit is spent (RATE_LIMITED)',
            headers: headerRefs('Retry-After'),
            content: { ...HTML, 'application/json': { schema: CONTRACT_ERROR } },
          },
          '500': page('The server could not complete the request (an error page)'),
        },
      },
    },
    '/oauth/device_authorization': {
      post: {
        operationId: 'deviceAuthorization',
        tags: ['oauth'],
        security: open,
        summary: 'Start a device authorization (RFC 8628 §3.1)',
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
          ...OAUTH_ERRORS,
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'revoke',
        tags: ['oauth'],
        security: open,
        summary: 'Revoke a token (RFC 7009)',
        requestBody: form(
          { token: str('The token'), token_type_hint: str('access_token or refresh_token'), ...CLIENT_AUTH },
          ['token'],
        ),
        responses: { '200': { description: 'Revoked (or nothing to revoke)' }, ...OAUTH_ERRORS },
      },
    },
    '/oauth/introspect': {
      post: {
        operationId: 'introspect',
        tags: ['oauth'],
        security: open,
        summary: 'Introspect a token (RFC 7662), for confidential clients only',
        requestBody: form(
          { token: str('The token'), token_type_hint: str('access_token or refresh_token'), ...CLIENT_AUTH },
          ['token'],
        ),
        responses: {
          '200': jsonBody(
            { type: 'object', required: ['active'], properties: { active: { type: 'boolean' } } },
            'Token details, or {"active": false}',
          ),
          ...OAUTH_ERRORS,
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        operationId: 'authorizationServerMetadata',
        tags: ['oauth'],
        security: open,
        summary: 'Get the authorization server metadata (RFC 8414)',
        responses: { '200': jsonBody({ type: 'object' }, 'RFC 8414 metadata') },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'jwks',
        tags: ['oauth'],
        security: open,
        summary: 'Get the public keys that sign access tokens (RFC 7517)',
        responses: { '200': jsonBody({ type: 'object' }, 'The public signing keys (RFC 7517)') },
      },
    },
  }
}
