import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, type ServeOptions, serve } from '../../server/serve.ts'
import { type Database, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import type { Store } from '../../server/store/store.ts'

export interface Tenant {
  orgId: string
  clientId: string
  clientSecret: string
  token: string
  /** fetch against the server with this tenant's bearer token. */
  fetch: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>
}

export interface TestServer {
  url: string
  dbPath: string
  /** A second connection to the server's SQLite file, for setup and for checking what was stored. */
  db: Database
  /** The store over that second connection, as the admin commands use it. */
  store: Store
  /** A new organization with a confidential client and a token from the real token endpoint. */
  tenant: (options?: { scope?: string[] }) => Promise<Tenant>
  /** fetch with no credentials. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>
  stop: () => Promise<void>
}

/**
 * Starts a real server on a free loopback port over a fresh SQLite file; `options` go to serve().
 * Tests send many requests a minute from one address: unless a test sets it, the rate limit is
 * far above what any test sends, and only errors are logged.
 */
export async function startTestServer(
  options: Pick<
    ServeOptions,
    'corsOrigins' | 'rateLimit' | 'logLevel' | 'logger' | 'bodyIdleTimeoutMs' | 'housekeeping' | 'webhooks'
  > = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'api-test-'))
  const dbPath = join(dir, 'api.db')
  const server: RunningServer = await serve({
    host: '127.0.0.1',
    port: 0,
    db: dbPath,
    rateLimit: 1_000_000,
    // Only unexpected errors, on standard error, where a test can watch for them.
    ...(options.logLevel ? {} : { logger: createLogger('error', (line) => console.error(line)) }),
    ...options,
  })
  const db = openDatabase(dbPath)
  const store = sqliteStore(db)
  let tenants = 0
  const raw = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init)
  return {
    url: server.url,
    dbPath,
    db,
    store,
    fetch: raw,
    tenant: async (options = {}) => {
      tenants += 1
      const org = await store.orgs.create(`Org ${tenants}`)
      const { client, secret } = await store.clients.create({
        name: `client ${tenants}`,
        orgId: org.id,
        public: false,
        scope: options.scope,
      })
      const response = await raw('/oauth/token', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${btoa(`${client.id}:${secret}`)}`,
        },
        body: 'grant_type=client_credentials',
      })
      if (response.status !== 200)
        throw new Error(`token request failed: ${response.status} ${await response.text()}`)
      const { access_token: token } = (await response.json()) as { access_token: string }
      return {
        orgId: org.id,
        clientId: client.id,
        clientSecret: secret!,
        token,
        fetch: (path, init = {}) => {
          const headers = new Headers(init.headers)
          headers.set('Authorization', `Bearer ${token}`)
          let body = init.body
          if (init.json !== undefined) {
            headers.set('Content-Type', 'application/json')
            body = JSON.stringify(init.json)
          }
          return raw(path, { ...init, headers, body })
        },
      }
    },
    stop: async () => {
      db.close()
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
