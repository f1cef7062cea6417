import { type App, createApp } from './app.ts'
import type { SocketData } from './graphql/websocket.ts'
import { rememberClientAddress } from './http/client-address.ts'
import { migrateDatabase, openDatabase } from './store/db.ts'

export interface ServeOptions {
  host: string
  port: number
  db: string
  baseUrl?: string
  /** `--production`: no GraphQL introspection, no development pages. */
  production?: boolean
  /** Origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[]
  /** Printed once listening, for people; tests read the port from it. */
  out?: (line: string) => void
}

export interface RunningServer {
  url: string
  port: number
  stop: () => Promise<void>
}

/** Opens and migrates the database, then serves the API until stopped. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const db = openDatabase(options.db)
  migrateDatabase(db)
  // The port is only known after listening when 0 was asked for; the issuer follows it.
  let baseUrl = options.baseUrl
  const lateBaseUrl = baseUrl === undefined
  let fetchHandler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 })
  let app: App | undefined
  const server = Bun.serve<SocketData>({
    hostname: options.host,
    port: options.port,
    // Bodies are read by the handlers; Bun refuses larger ones before they are buffered.
    maxRequestBodySize: 1024 * 1024 + 1,
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
  app = await createApp({
    db,
    baseUrl: baseUrl!.replace(/\/+$/, ''),
    production: options.production,
    corsOrigins: options.corsOrigins,
  })
  fetchHandler = app.fetch
  const url = `http://${hostForUrl}:${server.port}`
  options.out?.(`api-server listening on ${url} (database ${options.db})`)
  return {
    url,
    port: server.port!,
    stop: async () => {
      // Subscriptions end first (streams complete, sockets close), or stop() would wait for them.
      app?.close()
      await server.stop()
      db.close()
    },
  }
}
