import { ERROR_STATUS } from '../../shared/errors.ts'
import { ALL_SCOPES, RESOURCES } from '../../shared/resources/index.ts'
import type { JsonObject } from './json.ts'
import { resourcePaths } from './paths.ts'
import { componentSchemas } from './schemas.ts'

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

/**
 * The OpenAPI 3.1 document of one API version, generated from the resource declarations: every
 * path, parameter, body, response and error. The HTTP QUERY method has no place in OpenAPI 3.1;
 * collections that take it say so in `x-query`.
 */
export function openApiDocument(options: { version: string; prefix: string; baseUrl: string }): JsonObject {
  const responses: Record<string, JsonObject> = {}
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    if (status < 400) continue
    responses[`E${status}`] = {
      description: code,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'api-service',
      version: options.version,
      description: 'Resource-oriented REST API. Conventions: docs/api.md.',
    },
    servers: [{ url: options.baseUrl }],
    security: [{ oauth2: [] }],
    tags: RESOURCES.map((r) => ({ name: r.name })),
    paths: resourcePaths(options.prefix),
    components: {
      schemas: componentSchemas(RESOURCES),
      responses,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Bearer access tokens (ES256 JWT, RFC 9068) from the token endpoint.',
          flows: {
            clientCredentials: {
              tokenUrl: `${options.baseUrl}/oauth/token`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, describeScope(s)])),
            },
            authorizationCode: {
              authorizationUrl: `${options.baseUrl}/oauth/authorize`,
              tokenUrl: `${options.baseUrl}/oauth/token`,
              refreshUrl: `${options.baseUrl}/oauth/token`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, describeScope(s)])),
            },
          },
        },
      },
    },
  }
}
