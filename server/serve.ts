import { createApp } from './app.ts'
import { migrateDatabase, openDatabase } from './store/db.ts'

export interface ServeOptions {
  host: string
  port: number
  db: string
  baseUrl?: string
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
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // Bodies are read by the handlers; Bun refuses larger ones before they are buffered.
    maxRequestBodySize: 1024 * 1024 + 1,
    fetch: (request) => fetchHandler(request),
  })
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host
  if (lateBaseUrl) baseUrl = `http://${hostForUrl}:${server.port}`
  const app = await createApp({ db, baseUrl: baseUrl!.replace(/\/+$/, '') })
  fetchHandler = app.fetch
  const url = `http://${hostForUrl}:${server.port}`
  options.out?.(`api-server listening on ${url} (database ${options.db})`)
  return {
    url,
    port: server.port!,
    stop: async () => {
      await server.stop()
      db.close()
    },
  }
}
