import { ERROR_STATUS } from '../../shared/errors.ts'
import { ALL_SCOPES, RESOURCES } from '../../shared/resources/index.ts'
import type { ApiVersion } from '../versions/versions.ts'
import type { JsonObject } from './json.ts'
import { resourcePaths } from './paths.ts'
import { componentSchemas } from './schemas.ts'
import { searchPaths, servicePaths } from './service-paths.ts'

function describeScope(scope: string): string {
  const [action, collection] = scope.split(':')
  return (
    {
      read: `Read ${collection}`,
      write: `Create, change and delete ${collection}`,
      delete: `Delete whole collections of ${collection}`,
    }[action!] ?? scope
  )
}

const header = (description: string, ref?: string): JsonObject =>
  ref ? { $ref: `#/components/headers/${ref}` } : { description, schema: { type: 'string' } }

/** Headers every response carries, and those of a deprecated version. */
const HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': header('The request id, as sent (when acceptable) or generated'),
  RateLimit: header('draft-ietf-httpapi-ratelimit-headers: "default";r=<remaining>;t=<seconds to reset>'),
  'RateLimit-Policy': header('draft-ietf-httpapi-ratelimit-headers: "default";q=<quota>;w=<window seconds>'),
}
const DEPRECATION_HEADERS: Record<string, JsonObject> = {
  Deprecation: header('RFC 9745: @<unix-seconds>;version="v1"'),
  Sunset: header('RFC 8594: when this version goes away'),
  Link: header('RFC 8288: </api/v2/...>; rel="successor-version"'),
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/**
 * Every operation also answers 429 (rate limit) and 500, 413 when it takes a body, and every
 * response carries the edge's headers (and, under a deprecated version's prefix, its headers).
 */
function withEdgeResponses(paths: Record<string, JsonObject>, deprecated: boolean): void {
  for (const [path, item] of Object.entries(paths)) {
    const inVersion = path.startsWith('/api/v') && deprecated
    const names = Object.keys({ ...HEADERS, ...(inVersion ? DEPRECATION_HEADERS : {}) })
    const refs = Object.fromEntries(names.map((name) => [name, header('', name)]))
    for (const method of METHODS) {
      const operation = item[method] as JsonObject | undefined
      if (!operation) continue
      if (inVersion) operation.deprecated = true
      const responses = operation.responses as Record<string, JsonObject>
      for (const status of ['429', '500', ...(operation.requestBody ? ['413'] : [])])
        responses[status] ??= { $ref: `#/components/responses/E${status}` }
      for (const response of Object.values(responses))
        if (!('$ref' in response)) response.headers = { ...(response.headers as JsonObject), ...refs }
    }
  }
}

/**
 * The OpenAPI 3.1 document of one API version, generated from the resource declarations (through
 * the version's changes): every path, parameter, body, response and error, and the service's
 * own endpoints. The HTTP QUERY method has no place in OpenAPI 3.1; resources that take it say
 * so in `x-query`.
 */
export function openApiDocument(options: { version: ApiVersion; baseUrl: string }): JsonObject {
  const { version, baseUrl } = options
  const deprecated = version.status === 'deprecated'
  const responses: Record<string, JsonObject> = {}
  const errorHeaders = Object.fromEntries(
    Object.keys({ ...HEADERS, ...(deprecated ? DEPRECATION_HEADERS : {}) }).map((name) => [
      name,
      header('', name),
    ]),
  )
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    if (status < 400) continue
    responses[`E${status}`] = {
      description: code,
      headers: status === 429 ? { ...errorHeaders, 'Retry-After': header('Seconds to wait') } : errorHeaders,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  const paths = { ...resourcePaths(version.prefix), ...searchPaths(version.prefix), ...servicePaths() }
  withEdgeResponses(paths, deprecated)
  const sunset = deprecated ? ` Deprecated: goes away on ${version.sunsetAt!.slice(0, 10)}; use /api/v2.` : ''
  return {
    openapi: '3.1.0',
    info: {
      title: 'api-service',
      version: version.name,
      description: `Resource-oriented REST API, ${version.name} (${version.status}).${sunset} Conventions: docs/api.md; versions and limits: docs/operations.md.`,
    },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: [] }],
    tags: [
      ...RESOURCES.map((r) => ({ name: r.name })),
      { name: 'search' },
      { name: 'oauth' },
      { name: 'service' },
    ],
    paths,
    components: {
      schemas: componentSchemas(RESOURCES, version),
      responses,
      headers: { ...HEADERS, ...DEPRECATION_HEADERS },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Bearer access tokens (ES256 JWT, RFC 9068) from the token endpoint.',
          flows: {
            clientCredentials: {
              tokenUrl: `${baseUrl}/oauth/token`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, describeScope(s)])),
            },
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              refreshUrl: `${baseUrl}/oauth/token`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, describeScope(s)])),
            },
          },
        },
      },
    },
  }
}
