import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { UNMETERED } from '../http/edge.ts'
import type { ApiVersion } from '../versions/versions.ts'
import { aggregatePaths, aggregateSchemas } from './aggregate-paths.ts'
import { batchPaths } from './batch-paths.ts'
import { edgeHeadersOf, errorResponse, referencedErrors } from './error-responses.ts'
import { DEPRECATION_HEADERS, EDGE_HEADERS, HEADERS, headerRefs } from './headers.ts'
import type { JsonObject } from './json.ts'
import { resourcePaths } from './paths.ts'
import type { QueryField } from './query-operation.ts'
import { componentSchemas } from './schemas.ts'
import { searchPaths } from './search-paths.ts'
import { servicePaths } from './service-paths.ts'

/**
 * v2, the current version, is published as OpenAPI 3.2, whose `query` field describes QUERY.
 * v1's document stays on 3.1, the version its clients were generated from; QUERY is there an
 * Operation Object under `x-query`, the convention of the tools that know QUERY in 3.1.
 */
const FORMATS: Record<ApiVersion['name'], { openapi: string; queryField: QueryField }> = {
  v1: { openapi: '3.1.0', queryField: 'x-query' },
  v2: { openapi: '3.2.0', queryField: 'query' },
}

const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch', 'query', 'x-query']

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
 * The statuses any operation may answer, whatever it does (server/http/edge.ts, server/serve.ts):
 * 413 for a Content-Length over the limit (checked before routing, whatever the method), 414,
 * 429 (except on the health probes), Bun's own 431, 500, and 503 (starting, a dependency down);
 * 408 where a body is read; and on the version's paths 405, which they answer to any method they
 * do not list (QUERY on a record, for one).
 */
function edgeStatuses(path: string, operation: JsonObject, inVersion: boolean): number[] {
  return [
    ...(inVersion ? [405] : []),
    ...(operation.requestBody ? [408] : []),
    413,
    414,
    ...(UNMETERED.has(path) ? [] : [429]),
    431,
    500,
    503,
  ]
}

/**
 * What the edge adds to every operation (edgeStatuses), and the headers of every response, with a
 * deprecated version's own on its paths. Paths outside the version write their errors out, since
 * the component responses carry the version's headers.
 */
function withEdgeResponses(paths: Record<string, JsonObject>, prefix: string, deprecated: boolean): void {
  for (const [path, item] of Object.entries(paths)) {
    const inVersion = path.startsWith(`${prefix}/`)
    const edge = headerRefs(...EDGE_HEADERS, ...(inVersion && deprecated ? DEPRECATION_HEADERS : []))
    for (const method of OPERATIONS) {
      const operation = item[method] as JsonObject | undefined
      if (!operation) continue
      if (inVersion && deprecated) operation.deprecated = true
      const responses = operation.responses as Record<string, JsonObject>
      for (const status of edgeStatuses(path, operation, inVersion))
        responses[status] ??= inVersion
          ? { $ref: `#/components/responses/E${status}` }
          : errorResponse(status)
      for (const [status, response] of Object.entries(responses)) {
        if ('$ref' in response) continue
        const headers = { ...(response.headers as JsonObject), ...edgeHeadersOf(Number(status), edge) }
        if (Object.keys(headers).length > 0) response.headers = headers
      }
    }
  }
}

/** The error responses the version's paths refer to. */
function componentResponses(
  paths: Record<string, JsonObject>,
  deprecated: boolean,
): Record<string, JsonObject> {
  const edge = headerRefs(...EDGE_HEADERS, ...(deprecated ? DEPRECATION_HEADERS : []))
  const responses: Record<string, JsonObject> = {}
  for (const status of referencedErrors(paths)) {
    const response = errorResponse(status)
    const headers = { ...(response.headers as JsonObject), ...edgeHeadersOf(status, edge) }
    responses[`E${status}`] = Object.keys(headers).length > 0 ? { ...response, headers } : response
  }
  return responses
}

/**
 * What a client learning the collections from this document (the CLI, docs/cli.md) needs and
 * OpenAPI has no place for: the singular its component schemas are named after, the id prefix
 * that reference fields' patterns name, the parent and the field carrying its id, and the fields
 * `sort` and `q` take (the parameters name them only in prose); for the console, the fields revealed
 * once, the scopes that guard it and whether it is read-only. Fields, types, filters and actions it
 * reads from the standard parts.
 */
const collectionExtension = (r: Resource) => ({
  singular: r.singular,
  prefix: r.prefix,
  ...(r.parent ? { parent: { ...r.parent } } : {}),
  sort: r.sortable.filter((f) => r.fields[f]?.sort),
  search: [...r.searchable],
  // Fields shown once, in the answer to the create and to an action (a secret): the console
  // offers to copy them and says they will not be shown again.
  ...(Object.keys(r.revealed).length > 0 ? { revealed: Object.keys(r.revealed) } : {}),
  // The scopes that guard it (a webhook endpoint's deliveries use the endpoint's), and whether
  // records may be made, changed and deleted through it (actions aside).
  scopes: { read: r.scopes.read, write: r.scopes.write },
  ...(r.writable ? {} : { writable: false }),
})

const tagsOf = (schema: Schema) => [
  ...schema.resources.map((r) => ({
    name: r.name,
    description:
      `The ${r.name.replace(/-/g, ' ')}${r.parent ? `, nested under ${r.parent.collection}` : ''}` +
      `${r.writable ? '' : ' (read-only)'}; ids start with ${r.prefix}_.`,
    'x-collection': collectionExtension(r),
  })),
  { name: 'search', description: 'Search across collections, and the stored queries and answers of QUERY.' },
  { name: 'oauth', description: 'The authorization server (docs/oauth.md).' },
  { name: 'service', description: 'The service index, the versions, health, and this document.' },
]

/**
 * The OpenAPI document of one API version, generated from the resource declarations (through
 * the version's changes): every path, parameter, body, response, header and error, and the
 * service's own endpoints.
 */
export function openApiDocument(options: {
  schema: Schema
  version: ApiVersion
  baseUrl: string
}): JsonObject {
  const { schema, version, baseUrl } = options
  const { openapi, queryField } = FORMATS[version.name]
  const deprecated = version.status === 'deprecated'
  // Built fresh and copied: the edge's additions must not reach objects the path builders share.
  // v1 is deprecated and gets no new endpoints: aggregates are the current version's.
  const current = version.status === 'current'
  const paths = structuredClone({
    ...resourcePaths(schema, version.prefix, queryField, current),
    ...(current ? aggregatePaths(schema, version.prefix, queryField) : {}),
    ...searchPaths(schema, version.prefix, queryField),
    ...servicePaths(version.prefix),
    ...batchPaths(version),
  })
  withEdgeResponses(paths, version.prefix, deprecated)
  const sunset = deprecated ? ` Deprecated: goes away on ${version.sunsetAt!.slice(0, 10)}; use /api/v2.` : ''
  // An admin-only collection's scopes say so: the console and clients see who can be given them.
  const adminOnly = new Set(
    schema.resources.filter((r) => r.adminOnly).flatMap((r) => Object.values(r.scopes)),
  )
  const scopes = Object.fromEntries(
    schema.scopes.map((s) => [s, `${describeScope(s)}${adminOnly.has(s) ? ' (admins only)' : ''}`]),
  )
  return {
    openapi,
    info: {
      title: 'api-service',
      version: version.name,
      description:
        `Resource-oriented REST API, ${version.name} (${version.status}).${sunset} ` +
        `The resource, search and stored-query paths under ${version.prefix} answer HEAD wherever GET works, ` +
        'OPTIONS with 204 and Allow, and a method they do not list with 405 (listed on every operation). ' +
        'Conventions: docs/api.md; QUERY: docs/query.md; ' +
        'versions and limits: docs/operations.md.',
    },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: [] }],
    tags: tagsOf(schema),
    paths,
    components: {
      schemas: { ...componentSchemas(schema, version), ...(current ? aggregateSchemas(schema) : {}) },
      responses: componentResponses(paths, deprecated),
      headers: Object.fromEntries(
        Object.entries(HEADERS).filter(([name]) => deprecated || !DEPRECATION_HEADERS.includes(name)),
      ),
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Bearer access tokens (ES256 JWT, RFC 9068) from the token endpoint.',
          // OpenAPI 3.2 can also name the RFC 8414 metadata and the device flow (RFC 8628).
          ...(openapi === '3.2.0'
            ? { oauth2MetadataUrl: `${baseUrl}/.well-known/oauth-authorization-server` }
            : {}),
          flows: {
            clientCredentials: { tokenUrl: `${baseUrl}/oauth/token`, scopes },
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              refreshUrl: `${baseUrl}/oauth/token`,
              scopes,
            },
            ...(openapi === '3.2.0'
              ? {
                  deviceAuthorization: {
                    deviceAuthorizationUrl: `${baseUrl}/oauth/device_authorization`,
                    tokenUrl: `${baseUrl}/oauth/token`,
                    refreshUrl: `${baseUrl}/oauth/token`,
                    scopes,
                  },
                }
              : {}),
          },
        },
      },
    },
  }
}
