import { Elysia } from 'elysia'
import { methodNotAllowed, notFound } from '../shared/errors.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { currentAccess } from './auth/current-access.ts'
import { KeyRing } from './auth/keys.ts'
import { type TokenSettings, TokenVerifier } from './auth/tokens.ts'
import { mountConsole } from './console/routes.ts'
import type { GraphQLEndpoint } from './graphql/endpoint.ts'
import { graphiqlPage, mountGraphiQLAssets, wantsGraphiQL } from './graphql/graphiql-page.ts'
import { isJsonType } from './http/body.ts'
import { conditionalAnswer, type Representation, representation } from './http/conditional.ts'
import { createEdge } from './http/edge.ts'
import { checkJsonText } from './http/json-text.ts'
import { DEFAULT_RATE_LIMIT, RateLimiter } from './http/rate-limit.ts'
import { RedisConnection } from './http/redis-connection.ts'
import { RedisQuota } from './http/redis-quota.ts'
import { DEFAULT_CACHE_MB, ResponseCache } from './http/response-cache.ts'
import { errorResponse, json, noContent } from './http/responses.ts'
import type { IdpConfig } from './idp/config.ts'
import { activateProviders, type IdpProviders } from './idp/context.ts'
import { ServerMetrics } from './metrics/server-metrics.ts'
import { oauthClientHooks } from './oauth/client-hooks.ts'
import { createOAuthContext } from './oauth/context.ts'
import { mountOAuth } from './oauth/routes.ts'
import { mountDocs } from './openapi/docs-page.ts'
import { openApiDocument } from './openapi/document.ts'
import { mountHealth } from './ops/health.ts'
import { createLogger, currentRequestId, type Logger } from './ops/logger.ts'
import { mountServiceIndex } from './ops/service-index.ts'
import type { EngineContext } from './resources/context.ts'
import { CursorCodec } from './resources/cursor.ts'
import { mountRest } from './rest/routes.ts'
import type { Store } from './store/store.ts'
import { VERSIONS, versionCatalog } from './versions/versions.ts'
import { webhookHooks } from './webhooks/hooks.ts'
import type { Resolver } from './webhooks/target.ts'

interface AppOptions {
  /** The resources served, built once at start (server/main.ts: the built-in example). */
  schema: Schema
  store: Store
  /** Public origin: the OAuth issuer and the access tokens' audience. */
  baseUrl: string
  clock?: () => number
  /** The structured log: access lines and unexpected errors (never sent to the client); none by default. */
  logger?: Logger
  /** Where unexpected errors go instead of the logger's error lines. */
  log?: (error: unknown) => void
  /**
   * Requests a minute per client and user (whatever their token), or per address without one;
   * 0 turns limits off.
   */
  rateLimit?: number
  /** `--redis`: a `redis://` URL; the quota is then counted in Redis, shared by every replica. */
  redis?: string
  /** `--production`: no GraphQL introspection, no development pages. */
  production?: boolean
  /** Origins allowed to call the API from a browser (`--cors-origin`, server/http/cors.ts). */
  corsOrigins?: readonly string[]
  /** Longest pause while a request body arrives before it is 408 (server/http/limits.ts). */
  bodyIdleTimeoutMs?: number
  /** `--allow-http-webhooks`: webhook URLs may be http (or https) to a loopback address. */
  allowHttpWebhooks?: boolean
  /** What DNS answers for webhook URLs (tests answer for it). */
  resolve?: Resolver
  /** How long a webhook URL's host may take to resolve on create and change (default 5 s). */
  resolveTimeoutMs?: number
  /** `--no-console` turns the web console (server/console/) off: every /console path is 404. */
  console?: boolean
  /** MiB of record reads' answers kept (server/http/response-cache.ts); 0 turns the cache off (`--no-cache`). */
  cacheMb?: number
  /** `--metrics-token`: a bearer token that may read `/metrics` from any address (server/metrics/). */
  metricsToken?: string
  /** `--idp`: the outside identity providers (server/idp/); none by default. */
  idp?: { file: string; config: IdpConfig }
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
  /** Marks the app as shutting down (`/readyz` answers 503). */
  drain: () => void
  /** Requests being handled now. */
  inFlight: () => number
  /** This server's own metrics (`/metrics`): the webhook worker counts its attempts there. */
  metrics: ServerMetrics
}

/**
 * GraphQL reads its own JSON; the checks of every JSON body (server/http/json-text.ts: depth,
 * repeated member names) hold on the whole request there too, variables included. A POST's JSON
 * text comes back with the request, which GraphQL then parses without reading the body again.
 */
async function jsonChecked(request: Request): Promise<[Request, string?]> {
  if (request.method === 'GET') {
    // GraphQL over GET carries its JSON in the query string; it is held to the same checks, as
    // members of the request object a POST would send (so the paths and depths read alike).
    const params = new URL(request.url).searchParams
    for (const name of ['variables', 'extensions']) {
      const value = params.get(name)
      if (value !== null) checkJsonText(`{${JSON.stringify(name)}:${value}}`)
    }
    return [request]
  }
  if (request.method !== 'POST' || !isJsonType(request.headers.get('content-type'))) return [request]
  const text = await request.text()
  checkJsonText(text)
  return [request, text]
}

/** Builds the whole HTTP application over one database. */
export async function createApp(options: AppOptions): Promise<App> {
  const { schema, store, baseUrl } = options
  const clock = options.clock ?? Date.now
  const logger = options.logger ?? createLogger('silent')
  const log = options.log ?? ((error: unknown) => logger.error(error))
  let draining = false
  const keys = new KeyRing(store, clock)
  await keys.load()
  const tokens: TokenSettings = {
    issuer: baseUrl,
    audience: baseUrl,
    keys,
    clock,
    current: currentAccess(store, schema),
  }
  const verifier = new TokenVerifier(tokens)
  const cacheMb = options.cacheMb ?? DEFAULT_CACHE_MB
  const metrics = new ServerMetrics({ store, token: options.metricsToken })
  const cache =
    cacheMb > 0
      ? new ResponseCache(store.changes, cacheMb * 1024 * 1024, (hit) => metrics.cacheLookup(hit))
      : undefined
  const engine: EngineContext = {
    schema,
    store,
    clock,
    cursors: new CursorCodec(await store.settings.instanceSecret('cursor_key')),
    requestId: currentRequestId,
    hooks: new Map([
      ...webhookHooks({
        allowHttp: options.allowHttpWebhooks ?? false,
        resolve: options.resolve,
        resolveTimeoutMs: options.resolveTimeoutMs,
      }),
      oauthClientHooks(),
    ]),
  }

  // The service's fixed paths (/, /docs, /healthz, the documents, the OAuth endpoints) by their
  // methods, filled once everything is mounted: another method there is 405 with Allow, as on
  // the API's paths, not 404.
  const fixedPaths = new Map<string, string[]>()
  const app = new Elysia()
    .onError(({ code, error, request, path }) => {
      if (code !== 'NOT_FOUND') return errorResponse(error, log)
      const methods = fixedPaths.get(path)
      if (!methods) return errorResponse(notFound('No such path.'))
      if (request.method === 'OPTIONS') return noContent({ Allow: methods.join(', ') })
      return errorResponse(methodNotAllowed(methods))
    })
    .get('/.well-known/jwks.json', async () =>
      json(200, await keys.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    )
  // `--redis`: one connection for the request quota and the OAuth throttles, shared by every replica.
  const redis = options.redis
    ? new RedisConnection(
        options.redis,
        (error) =>
          logger.log('error', 'redis unreachable: each replica counts limits on its own until it answers', {
            error: error instanceof Error ? error.message : String(error),
          }),
        () => logger.log('warn', 'redis answers again: limits are counted in it'),
      )
    : undefined
  // A `createUsers.org` that names no organization stops the start here (IdpFileError).
  const idp: IdpProviders = options.idp
    ? await activateProviders(options.idp.file, options.idp.config, store, baseUrl)
    : new Map()
  mountOAuth(
    app,
    await createOAuthContext({ schema, store, issuer: baseUrl, tokens, verifier, clock, log, idp }, redis),
  )
  for (const version of VERSIONS) {
    mountRest(app, version.prefix, { engine, verifier, log, version, cache })
    // Worked out on first request: most servers are never asked. Its strong ETag lets the CLI,
    // which keeps the document to learn the collections, revalidate it with a 304 (docs/cli.md).
    let openApi: Representation | undefined
    app.get(`${version.prefix}/openapi.json`, ({ request }) => {
      openApi ??= representation(
        openApiDocument({ schema, version, baseUrl }),
        new Date(clock()).toISOString(),
        { 'Cache-Control': 'public, max-age=300' },
      )
      return conditionalAnswer(request, openApi)
    })
  }
  app.get('/api/versions', () =>
    json(200, versionCatalog(schema), { 'Cache-Control': 'public, max-age=300' }),
  )
  mountHealth(app, store, () => draining, redis)
  mountDocs(app)
  mountServiceIndex(app)
  if (options.console ?? true) {
    await store.clients.ensureConsole(baseUrl)
    mountConsole(app, () =>
      import('./console/assets.ts').then(({ loadConsoleAssets }) => loadConsoleAssets()),
    )
  }
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT
  // One quota for HTTP requests and GraphQL operations over WebSocket.
  const limiter =
    rateLimit <= 0
      ? undefined
      : redis
        ? new RedisQuota(redis, rateLimit, clock)
        : new RateLimiter(rateLimit, clock)
  // GraphQL (Yoga, the generated schema) loads on its first request: a server only ever asked
  // REST does not hold it (docs/performance.md, "Memory").
  let graphql: GraphQLEndpoint | undefined
  let loading: Promise<GraphQLEndpoint> | undefined
  const loadGraphQL = () => {
    loading ??= import('./graphql/endpoint.ts').then(({ createGraphQL }) => {
      graphql = createGraphQL({ engine, verifier, limiter, log, cache, production: options.production })
      return graphql
    })
    return loading
  }
  const production = options.production ?? false
  app.all(
    '/graphql',
    async ({ request }) => {
      // A browser gets GraphiQL, which needs no GraphQL loaded to be served.
      if (wantsGraphiQL(request)) return graphiqlPage(production)
      return (graphql ?? (await loadGraphQL())).fetch(...(await jsonChecked(request)))
    },
    { parse: 'none' },
  )
  if (!production) mountGraphiQLAssets(app)
  for (const route of app.routes) {
    if (/[:*]/.test(route.path) || route.method === 'ALL') continue
    const methods = fixedPaths.get(route.path) ?? []
    if (!methods.includes(route.method)) methods.push(route.method)
    fixedPaths.set(route.path, methods)
  }
  for (const methods of fixedPaths.values()) {
    if (methods.includes('GET') && !methods.includes('HEAD'))
      methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD')
    if (!methods.includes('OPTIONS')) methods.push('OPTIONS')
  }
  app.compile()
  metrics.useRoutes(app.routes.map((route) => route.path))

  const edge = createEdge({
    handle: (request) => app.fetch(request),
    logger,
    clock,
    verifier,
    origin: baseUrl,
    limiter,
    cache,
    corsOrigins: options.corsOrigins ?? [],
    bodyIdleTimeoutMs: options.bodyIdleTimeoutMs,
    metrics,
  })
  return {
    tokens,
    metrics,
    engine,
    upgrade: (request, server) => {
      // Only a WebSocket handshake needs GraphQL loaded to be answered.
      if (graphql) return graphql.upgrade(request, server)
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return false
      return loadGraphQL().then((endpoint) => endpoint.upgrade(request, server))
    },
    // Sockets exist only once an upgrade loaded GraphQL.
    websocket: {
      open: (ws) => graphql?.websocket.open?.(ws),
      message: (ws, message) => graphql?.websocket.message?.(ws, message),
      close: (ws, code, reason) => graphql?.websocket.close?.(ws, code, reason),
    },
    close: () => {
      graphql?.close()
      redis?.close()
    },
    drain: () => {
      draining = true
    },
    inFlight: edge.inFlight,
    fetch: edge.fetch,
  }
}
