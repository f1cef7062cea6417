import { type App, createApp } from './app.ts'
import type { SocketData } from './graphql/websocket.ts'
import { rememberClientAddress } from './http/client-address.ts'
import { MAX_BODY_BYTES } from './http/limits.ts'
import { DEFAULT_RATE_LIMIT } from './http/rate-limit.ts'
import { type HousekeepingOptions, startHousekeeping } from './ops/housekeeping.ts'
import { createLogger, type Logger, type LogLevel } from './ops/logger.ts'
import { openStore } from './store/open.ts'
import type { Durability } from './store/types.ts'

export interface ServeOptions {
  host: string
  port: number
  db: string
  baseUrl?: string
  /** `--production`: no GraphQL introspection, no development pages. */
  production?: boolean
  /** Origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[]
  /** Longest pause while a request body arrives before it is 408 (default 5 s; tests shorten it). */
  bodyIdleTimeoutMs?: number
  /**
   * Requests a minute per client and user (whatever their token), or per address without one
   * (`--rate-limit`); 0 turns limits off.
   */
  rateLimit?: number
  /** `--durability`: `full` (default) syncs every commit to disk, `fast` only at checkpoints. */
  durability?: Durability
  /** `--log-level` of the JSON log on standard output (default info); ignored when `logger` is given. */
  logLevel?: LogLevel
  logger?: Logger
  /** When and how much expired data is purged (docs/operations.md, "Housekeeping"); tests shorten it. */
  housekeeping?: Partial<HousekeepingOptions>
  /** Printed once listening, for people; tests read the port from it. */
  out?: (line: string) => void
}

/** How long a shutdown waits for requests in flight before closing the database anyway. */
const DRAIN_TIMEOUT_MS = 10_000

export interface RunningServer {
  url: string
  port: number
  stop: () => Promise<void>
}

/** Opens and migrates the database, then serves the API until stopped. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const store = openStore(options.db, options.durability)
  store.migrate()
  // The port is only known after listening when 0 was asked for; the issuer follows it.
  let baseUrl = options.baseUrl
  const lateBaseUrl = baseUrl === undefined
  let fetchHandler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 })
  let app: App | undefined
  const server = Bun.serve<SocketData>({
    hostname: options.host,
    port: options.port,
    // The edge answers 413 itself (server/http/limits.ts), before reading a body past its limit;
    // Bun's own bound stays far above it so that the contract's 413, not Bun's bare one, answers.
    maxRequestBodySize: MAX_BODY_BYTES * 64,
    // GraphQL subscriptions over WebSocket: the app picks the requests to upgrade and handles the
    // sockets; it only exists once listening, hence the indirection.
    fetch: (request, server) => {
      // The peer address for the login pages' rate limits, from the socket, never from headers.
      rememberClientAddress(request, server.requestIP(request)?.address)
      if (app?.upgrade(request, server)) return undefined
      return fetchHandler(request).then((response) => {
        // An event stream (GraphQL subscriptions over SSE) is quiet between events and keeps
        // itself alive (a comment every 12 s); Bun's 10 s idle timeout would cut it.
        if (response.headers.get('content-type')?.startsWith('text/event-stream')) server.timeout(request, 0)
        return response
      })
    },
    websocket: {
      open: (ws) => app?.websocket.open?.(ws),
      message: (ws, message) => app?.websocket.message?.(ws, message),
      close: (ws, code, reason) => app?.websocket.close?.(ws, code, reason),
    },
  })
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host
  if (lateBaseUrl) baseUrl = `http://${hostForUrl}:${server.port}`
  const logger = options.logger ?? createLogger(options.logLevel ?? 'info')
  app = await createApp({
    store,
    baseUrl: baseUrl!.replace(/\/+$/, ''),
    production: options.production,
    corsOrigins: options.corsOrigins,
    bodyIdleTimeoutMs: options.bodyIdleTimeoutMs,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    logger,
  })
  fetchHandler = app.fetch
  const housekeeping = startHousekeeping(store, logger, Date.now, options.housekeeping)
  const url = `http://${hostForUrl}:${server.port}`
  // Said at start, read back from the connection, so an operator sees what the database really does.
  const durability = store.durability
  options.out?.(`api-server listening on ${url} (database ${options.db}, durability ${durability})`)
  return {
    url,
    port: server.port!,
    stop: async () => {
      // Shutdown (docs/operations.md): housekeeping stops, not ready any more, subscriptions end
      // (streams complete, sockets close; stop() would wait for them), no new connections, requests
      // in flight finish, then the WAL is checkpointed into the database file and the database closed.
      housekeeping.stop()
      app?.drain()
      app?.close()
      await server.stop()
      const deadline = Date.now() + DRAIN_TIMEOUT_MS
      while ((app?.inFlight() ?? 0) > 0 && Date.now() < deadline) await Bun.sleep(10)
      try {
        store.checkpoint()
      } catch (error) {
        // Another connection (an admin command) may hold the database; its WAL is kept, not lost.
        logger.log('warn', 'checkpoint skipped', { reason: (error as Error).message })
      }
      store.close()
      logger.log('info', 'stopped')
    },
  }
}
