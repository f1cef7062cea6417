import { Elysia } from 'elysia'
import { notFound } from '../shared/errors.ts'
import { KeyRing } from './auth/keys.ts'
import { revocationCheck } from './auth/revocation.ts'
import { type TokenSettings, TokenVerifier } from './auth/tokens.ts'
import { createGraphQL, type GraphQLEndpoint } from './graphql/endpoint.ts'
import { withCors } from './http/cors.ts'
import { errorResponse, json } from './http/responses.ts'
import { createOAuthContext } from './oauth/context.ts'
import { mountOAuth } from './oauth/routes.ts'
import { openApiDocument } from './openapi/document.ts'
import type { EngineContext } from './resources/context.ts'
import { CursorCodec } from './resources/cursor.ts'
import { mountRest } from './rest/routes.ts'
import type { Database } from './store/db.ts'
import { instanceSecret } from './store/settings.ts'

export interface AppOptions {
  db: Database
  /** Public origin: the OAuth issuer and the access tokens' audience. */
  baseUrl: string
  clock?: () => number
  /** Where unexpected errors go (never to the client). */
  log?: (error: unknown) => void
  /** `--production`: no GraphQL introspection, no development pages. */
  production?: boolean
  /** Origins allowed to call the API from a browser (`--cors-origin`, server/http/cors.ts). */
  corsOrigins?: readonly string[]
}

export interface App {
  fetch: (request: Request) => Promise<Response>
  tokens: TokenSettings
  engine: EngineContext
  /** GraphQL over WebSocket: Bun.serve upgrades with `upgrade` and hands the sockets to `websocket`. */
  upgrade: GraphQLEndpoint['upgrade']
  websocket: GraphQLEndpoint['websocket']
  /** Ends long-lived streams (subscriptions); call before closing the database. */
  close: () => void
}

/** Builds the whole HTTP application over one database. */
export async function createApp(options: AppOptions): Promise<App> {
  const { db, baseUrl } = options
  const clock = options.clock ?? Date.now
  const log = options.log ?? ((error: unknown) => console.error(error))
  const keys = new KeyRing(db, clock)
  await keys.load()
  const tokens: TokenSettings = {
    issuer: baseUrl,
    audience: baseUrl,
    keys,
    clock,
    revoked: revocationCheck(db),
  }
  const verifier = new TokenVerifier(tokens)
  const engine: EngineContext = { db, clock, cursors: new CursorCodec(instanceSecret(db, 'cursor_key')) }

  const app = new Elysia()
    .onError(({ code, error }) =>
      code === 'NOT_FOUND' ? errorResponse(notFound('No such path.')) : errorResponse(error, log),
    )
    .get('/.well-known/jwks.json', async () =>
      json(200, await keys.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    )
  mountOAuth(app, createOAuthContext({ db, issuer: baseUrl, tokens, verifier, clock, log }))
  mountRest(app, '/api/v1', { engine, verifier, log })
  const graphql = createGraphQL({ engine, verifier, log, production: options.production })
  app.all('/graphql', ({ request }) => graphql.fetch(request), { parse: 'none' })
  const openApi = JSON.stringify(openApiDocument({ version: '1', prefix: '/api/v1', baseUrl }))
  app.get('/api/v1/openapi.json', () =>
    json(200, JSON.parse(openApi), { 'Cache-Control': 'public, max-age=300' }),
  )
  app.compile()

  const handle = app.fetch
  return {
    tokens,
    engine,
    upgrade: graphql.upgrade,
    websocket: graphql.websocket,
    close: graphql.close,
    fetch: async (request) => {
      const response = await handle(request)
      response.headers.set('X-Content-Type-Options', 'nosniff')
      // RFC 9110 §6.6.1: an origin server sends Date; Bun.serve adds it to GET answers but not to HEAD.
      if (!response.headers.has('Date')) response.headers.set('Date', new Date(clock()).toUTCString())
      // Elysia answers HEAD with the length of the body it got, 0 for a 304; RFC 9110 §8.6 allows
      // only the 200's length there, so a 304 carries none, for GET and HEAD alike.
      if (response.status === 304) response.headers.delete('Content-Length')
      return withCors(options.corsOrigins ?? [], request, response)
    },
  }
}
