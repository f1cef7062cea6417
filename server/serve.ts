import { unavailable } from '../shared/errors.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { type App, createApp } from './app.ts'
import type { SocketData } from './graphql/websocket.ts'
import { rememberClientAddress } from './http/client-address.ts'
import { type Forwarded, forwarded } from './http/forwarded.ts'
import { lastResort } from './http/last-resort.ts'
import { MAX_BODY_BYTES } from './http/limits.ts'
import { publicHost } from './http/public-host.ts'
import { DEFAULT_RATE_LIMIT } from './http/rate-limit.ts'
import { errorResponse } from './http/responses.ts'
import { HSTS, loadTls, type TlsFiles } from './http/tls.ts'
import type { IdpConfig } from './idp/config.ts'
import { redirectLines } from './idp/context.ts'
import { type HousekeepingOptions, startHousekeeping } from './ops/housekeeping.ts'
import { createLogger, type Logger, type LogLevel } from './ops/logger.ts'
import { describeFailure, type OutageReport } from './store/availability.ts'
import { describeLocation, openStore } from './store/open.ts'
import type { Store } from './store/store.ts'
import type { Durability } from './store/types.ts'
import { startWebhookWorker, type WebhookOptions } from './webhooks/worker.ts'

export interface ServeOptions {
  host: string
  port: number
  db: string
  /** `--db-listen`: a direct PostgreSQL URL for change notifications when `db` goes through a pooler. */
  dbListen?: string
  /** The resources served and kept (the built-in example by default). */
  schema?: Schema
  baseUrl?: string
  /** `--tls-cert` and `--tls-key`: HTTPS served by this process (checked before anything opens). */
  tls?: TlsFiles
  /**
   * `--trust-proxy`: every connection comes through a proxy, whose `X-Forwarded-For` and
   * `X-Forwarded-Proto` (their last entries) give the client's address and scheme.
   */
  trustProxy?: boolean
  /** `--production`: no GraphQL introspection, no development pages. */
  production?: boolean
  /** `--no-console`: no web console; every /console path is 404. On by default. */
  console?: boolean
  /** Origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[]
  /** Longest pause while a request body arrives before it is 408 (default 5 s; tests shorten it). */
  bodyIdleTimeoutMs?: number
  /**
   * Requests a minute per client and user (whatever their token), or per address without one
   * (`--rate-limit`); 0 turns limits off.
   */
  rateLimit?: number
  /** `--redis`: the request quota in Redis, shared by every replica (server/http/redis-quota.ts). */
  redis?: string
  /** `--cache-mb`: MiB of record reads' answers kept; 0 (`--no-cache`) turns the response cache off. */
  cacheMb?: number
  /** `--metrics-token`: a bearer token that may read `/metrics` from any address (loopback needs none). */
  metricsToken?: string
  /** `--idp`: the outside identity providers file, read and checked (server/idp/config.ts). */
  idp?: { file: string; config: IdpConfig }
  /** `--durability`: `full` (default) syncs every commit to disk, `fast` only at checkpoints. */
  durability?: Durability
  /** `--log-level` of the JSON log on standard output (default info); ignored when `logger` is given. */
  logLevel?: LogLevel
  logger?: Logger
  /** When and how much expired data is purged (docs/operations.md, "Housekeeping"); tests shorten it. */
  housekeeping?: Partial<HousekeepingOptions>
  /**
   * The webhook worker (docs/webhooks.md): `allowHttp` is `--allow-http-webhooks`; tests shorten the
   * retry schedule, lease and timeouts, and may answer for DNS.
   */
  webhooks?: Partial<WebhookOptions>
  /** Runs on the migrated database before the server listens (`--demo` loads the demo data). */
  prepare?: (store: Store) => Promise<void>
  /** Printed once listening, for people (api-server sends it to standard error); tests read the port from it. */
  out?: (line: string) => void
}

/** How long a shutdown waits for requests in flight before closing the database anyway. */
const DRAIN_TIMEOUT_MS = 10_000

export interface RunningServer {
  /** Where it listens (`https://0.0.0.0:8443`). */
  url: string
  /** Where clients reach it: `--base-url`, else its own address by a name they can use; the issuer. */
  baseUrl: string
  port: number
  /** Whether the database holds an organization yet (the start-up hint says how to make one). */
  hasOrganization: () => Promise<boolean>
  stop: () => Promise<void>
}

/**
 * An outage of the database in two lines, whoever meets it first (a request, a job, `/readyz`);
 * meanwhile requests answer 503 (server/store/availability.ts) and only their access lines say so.
 */
function databaseOutageLog(logger: Logger): OutageReport {
  return {
    lost: (cause) =>
      logger.log('error', 'database unreachable: requests answer 503 until it answers again', {
        error: describeFailure(cause),
      }),
    back: (unavailableMs) => logger.log('warn', 'database answers again', { unavailableMs }),
  }
}

/** Opens and migrates the database, then serves the API until stopped. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  // A certificate or key it cannot use fails here, naming the file, before the database opens.
  const tls = options.tls ? loadTls(options.tls) : undefined
  const scheme = tls ? 'https' : 'http'
  const trustProxy = options.trustProxy ?? false
  const logger = options.logger ?? createLogger(options.logLevel ?? 'info')
  const schema = options.schema ?? exampleSchema()
  const store = openStore(options.db, schema, {
    durability: options.durability,
    listen: options.dbListen,
    outage: databaseOutageLog(logger),
    logger,
  })
  await store.migrate()
  await options.prepare?.(store)
  // The port is only known after listening when 0 was asked for; the issuer follows it.
  let baseUrl = options.baseUrl
  const lateBaseUrl = baseUrl === undefined
  // Listening comes first (the port of `--port 0` names the issuer); until the app is ready a
  // request gets the contract's 503 with Retry-After, not a bare one.
  let fetchHandler: (request: Request) => Promise<Response> = async () =>
    errorResponse(unavailable('The server is starting; try again in a moment.'))
  let app: App | undefined
  const server = Bun.serve<SocketData>({
    hostname: options.host,
    port: options.port,
    // Bun's development mode (its default) answers an error that escapes `fetch` with an HTML page
    // of stack frames and source lines; the contract's 500 never shows either.
    development: false,
    // The edge and `fetch` below catch everything; this is the net under them.
    error: (error) => lastResort(logger, error),
    // The edge answers 413 itself (server/http/limits.ts), before reading a body past its limit;
    // Bun's own bound stays far above it so that the contract's 413, not Bun's bare one, answers.
    maxRequestBodySize: MAX_BODY_BYTES * 64,
    tls,
    // GraphQL subscriptions over WebSocket: the app picks the requests to upgrade and handles the
    // sockets; it only exists once listening, hence the indirection.
    fetch: (request, server) => {
      const failed = (error: unknown) => lastResort(logger, error, request)
      try {
        // The client's address for rate limits and the log: the socket's peer, or under --trust-proxy
        // what the proxy in front says (a client reaching the port directly could say anything).
        const proxied: Forwarded = trustProxy ? forwarded(request.headers) : {}
        rememberClientAddress(request, proxied.address ?? server.requestIP(request)?.address)
        const secure = (proxied.scheme ?? scheme) === 'https'
        const respond = () =>
          fetchHandler(request)
            .then((response) => {
              // RFC 6797 §7.2: HSTS only over a secure transport, where the browser will heed it.
              if (secure) response.headers.set('Strict-Transport-Security', HSTS)
              // An event stream (GraphQL subscriptions over SSE) is quiet between events and keeps
              // itself alive (a comment every 12 s); Bun's 10 s idle timeout would cut it.
              if (response.headers.get('content-type')?.startsWith('text/event-stream'))
                server.timeout(request, 0)
              return response
            })
            .catch(failed)
        // A request whose URL Bun could not complete has no usable Host, which a WebSocket
        // handshake needs (RFC 6455 §4.1): the edge answers it (server/http/request-target.ts).
        const upgraded = URL.canParse(request.url) && app?.upgrade(request, server)
        // With the quota in Redis the upgrade waits for its count (Bun upgrades after an await).
        if (upgraded instanceof Promise)
          return upgraded.then((done) => (done ? undefined : respond())).catch(failed)
        if (upgraded) return undefined
        return respond()
      } catch (error) {
        return failed(error)
      }
    },
    websocket: {
      open: (ws) => app?.websocket.open?.(ws),
      message: (ws, message) => app?.websocket.message?.(ws, message),
      close: (ws, code, reason) => app?.websocket.close?.(ws, code, reason),
    },
  })
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host
  // Not 0.0.0.0: the issuer is where clients connect, by a name the certificate is for.
  if (lateBaseUrl) baseUrl = `${scheme}://${publicHost(options.host, tls?.cert)}:${server.port}`
  app = await createApp({
    schema,
    store,
    baseUrl: baseUrl!.replace(/\/+$/, ''),
    production: options.production,
    console: options.console,
    corsOrigins: options.corsOrigins,
    bodyIdleTimeoutMs: options.bodyIdleTimeoutMs,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    redis: options.redis,
    cacheMb: options.cacheMb,
    metricsToken: options.metricsToken,
    idp: options.idp,
    logger,
    allowHttpWebhooks: options.webhooks?.allowHttp,
    resolve: options.webhooks?.resolve,
    resolveTimeoutMs: options.webhooks?.resolveTimeoutMs,
  })
  fetchHandler = app.fetch
  const housekeeping = startHousekeeping(store, logger, Date.now, options.housekeeping)
  const webhooks = startWebhookWorker(store, logger, Date.now, {
    ...options.webhooks,
    attempted: (outcome) => app?.metrics.attempted(outcome),
  })
  const url = `${scheme}://${hostForUrl}:${server.port}`
  // Said at start, read back from the connection, so an operator sees what the database really does.
  const durability = store.durability
  options.out?.(
    `api-server listening on ${url} (database ${describeLocation(options.db)}, durability ${durability})`,
  )
  if (options.idp)
    for (const line of redirectLines(options.idp.config, baseUrl!.replace(/\/+$/, ''))) options.out?.(line)
  return {
    url,
    baseUrl: baseUrl!.replace(/\/+$/, ''),
    port: server.port!,
    hasOrganization: () => store.orgs.any(),
    stop: async () => {
      // Shutdown (docs/operations.md): housekeeping and the webhook worker stop, not ready any more,
      // subscriptions end
      // (streams complete, sockets close; stop() would wait for them), no new connections, requests
      // in flight finish, then the WAL is checkpointed into the database file and the database closed.
      housekeeping.stop()
      const webhooksStopped = webhooks.stop()
      app?.drain()
      app?.close()
      await server.stop()
      // Webhook attempts in flight finish and are recorded before the database closes.
      await webhooksStopped
      const deadline = Date.now() + DRAIN_TIMEOUT_MS
      while ((app?.inFlight() ?? 0) > 0 && Date.now() < deadline) await Bun.sleep(10)
      try {
        await store.checkpoint()
      } catch (error) {
        // Another connection (an admin command) may hold the database; its WAL is kept, not lost.
        logger.log('warn', 'checkpoint skipped', { reason: (error as Error).message })
      }
      await store.close()
      logger.log('info', 'stopped')
    },
  }
}
