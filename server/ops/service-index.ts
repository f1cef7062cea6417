import type { AnyElysia } from 'elysia'
import { json } from '../http/responses.ts'
import { VERSIONS } from '../versions/versions.ts'

/**
 * `GET /`: where to go from the root, for a person with curl or a client discovering the service.
 * Paths, not URLs: they hold on whatever origin the client reached, behind a proxy too.
 */
function serviceIndex(): Record<string, unknown> {
  const current = VERSIONS.find((v) => v.status === 'current') ?? VERSIONS[VERSIONS.length - 1]!
  return {
    name: 'api-service',
    links: {
      docs: '/docs',
      versions: '/api/versions',
      api: current.prefix,
      openapi: Object.fromEntries(VERSIONS.map((v) => [v.name, `${v.prefix}/openapi.json`])),
      graphql: '/graphql',
      oauthMetadata: '/.well-known/oauth-authorization-server',
      jwks: '/.well-known/jwks.json',
      health: '/healthz',
    },
  }
}

export function mountServiceIndex(app: AnyElysia): void {
  const body = serviceIndex()
  app.get('/', () => json(200, body, { 'Cache-Control': 'public, max-age=300' }))
}
