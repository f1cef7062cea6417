import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, type ServeOptions, serve } from '../../server/serve.ts'
import { openPostgresStore } from '../../server/store/postgres/store.ts'
import { type Database, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import type { Store } from '../../server/store/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from './backend.ts'
import { clientToken } from './tokens.ts'

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
  /** What the server's `--db` names: its SQLite file, or its PostgreSQL database's URL. */
  dbPath: string
  /**
   * A second connection to the server's SQLite file, for what only SQLite has (its file, its
   * pragmas); reading it on PostgreSQL (`npm run test:postgres`) throws. Prefer `sql`.
   */
  db: Database
  /** Statements on the server's database, on either backend. */
  sql: TestSql
  /** The store over a second connection, as the admin commands use it. */
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
    | 'corsOrigins'
    | 'rateLimit'
    | 'logLevel'
    | 'logger'
    | 'bodyIdleTimeoutMs'
    | 'housekeeping'
    | 'webhooks'
    | 'cacheMb'
    | 'production'
    | 'console'
    | 'schema'
    | 'trustProxy'
    | 'metricsToken'
  > & { host?: string } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'api-test-'))
  const location = onPostgres ? await postgresDatabase() : join(dir, 'api.db')
  const schema = options.schema ?? exampleSchema()
  const server: RunningServer = await serve({
    host: '127.0.0.1',
    port: 0,
    db: location,
    ...(onPostgres && process.env.API_TEST_REDIS_URL ? { redis: process.env.API_TEST_REDIS_URL } : {}),
    rateLimit: 1_000_000,
    // Only unexpected errors, on standard error, where a test can watch for them.
    ...(options.logLevel ? {} : { logger: createLogger('error', (line) => console.error(line)) }),
    ...options,
    schema,
  })
  const sqlite = onPostgres ? undefined : openDatabase(location)
  const store = sqlite ? sqliteStore(sqlite, schema) : openPostgresStore(location, schema)
  const sql = sqlite ? sqliteTestSql(sqlite) : postgresTestSql(location)
  let tenants = 0
  const raw = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init)
  return {
    url: server.url,
    dbPath: location,
    get db(): Database {
      if (!sqlite) throw new Error('this test reads the SQLite file; on PostgreSQL use server.sql')
      return sqlite
    },
    sql,
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
      const token = await clientToken(server.url, { id: client.id, secret: secret! })
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
      if (sqlite) sqlite.close()
      else {
        await sql.close()
        await store.close()
      }
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let databases = 0

/**
 * A fresh database on the suite's PostgreSQL server (`npm run test:postgres` starts it), and a clean
 * Redis: each test server starts from nothing, as a new SQLite file does.
 */
export async function postgresDatabase(): Promise<string> {
  const url = process.env.API_TEST_POSTGRES_URL
  if (!url)
    throw new Error('API_TEST_BACKEND=postgres needs API_TEST_POSTGRES_URL (npm run test:postgres sets it)')
  const name = `api_test_${process.pid}_${++databases}`
  const admin = new Bun.SQL(url, { max: 1 })
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.unsafe(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.close()
  }
  const redis = process.env.API_TEST_REDIS_URL
  if (redis) {
    const client = new Bun.RedisClient(redis)
    await client.send('FLUSHALL', [])
    client.close()
  }
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}
