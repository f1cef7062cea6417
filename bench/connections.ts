/**
 * `npm run bench:connections`: what connections the product holds on PostgreSQL and what works
 * through PgBouncer (Debian's `pgbouncer`). Starts a PostgreSQL with its defaults
 * (`max_connections = 100`), then:
 *
 * 1. counts one replica's connections after concurrent requests (its pool plus the LISTEN one);
 * 2. opens pools of that size until PostgreSQL refuses one, and prints its error;
 * 3. runs two replicas through PgBouncer in transaction mode: with Bun.sql's prepared statements,
 *    and with `?prepare=false` in the URL; then whether a token revoked on one replica is refused
 *    by the other (the caches follow `LISTEN api_changes`), through transaction mode and
 *    through session mode.
 *
 * Prints what it saw; docs/deployment.md and docs/performance.md quote it.
 */
import { join } from 'node:path'
import { SQL } from 'bun'
import { startPgbouncer } from '../test/support/pgbouncer.ts'
import { startTestPostgres } from '../test/support/postgres.ts'
import { adminCommand, BUN, clientToken, type ServerProcess, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const say = (line: string) => console.log(line)

const serve = (db: string) => [
  BUN,
  'server/main.ts',
  'serve',
  '--db',
  db,
  '--rate-limit',
  '0',
  '--log-level',
  'warn',
  '--base-url',
  'http://127.0.0.1:8080',
]

/** Requests every replica; the statuses seen, counted. */
async function burst(servers: ServerProcess[], bearer: string, n: number): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {}
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const r = await fetch(`${servers[i % servers.length]!.url}/api/v2/orders?limit=5`, {
        headers: { Authorization: `Bearer ${bearer}` },
      })
      const text = await r.text()
      // A failure's error code counts apart, so its cause shows.
      const key = r.status === 200 ? '200' : `${r.status} ${text.slice(0, 160)}`
      statuses[key] = (statuses[key] ?? 0) + 1
    }),
  )
  return statuses
}

/**
 * What the replicas' caches rely on: a `LISTEN api_changes` through `url` hearing NOTIFYs sent
 * directly to the database, while other clients keep the pooler busy.
 */
async function listenHears(url: string, direct: string): Promise<string> {
  const listener = new SQL(url, { max: 1, prepare: false })
  const busy = new SQL(url, { max: 8, prepare: false })
  const sender = new SQL(direct, { max: 1 })
  let heard = 0
  try {
    // Only the probe's own: the replicas announce their writes on the same channel.
    const subscription = await listener.listen('api_changes', (payload) => {
      if (payload === 'probe') heard++
    })
    for (let i = 0; i < 10; i++) {
      await Promise.all([
        sender.notify('api_changes', 'probe'),
        ...Array.from({ length: 8 }, () => busy`SELECT 1`),
      ])
      await Bun.sleep(50)
    }
    await Bun.sleep(500)
    await subscription.unlisten()
    return `LISTEN through it heard ${heard} of 10 NOTIFYs`
  } finally {
    await Promise.all([listener.close(), busy.close(), sender.close()])
  }
}

async function withReplicas<T>(db: string, fn: (servers: ServerProcess[]) => Promise<T>): Promise<T> {
  const servers: ServerProcess[] = []
  try {
    servers.push(await startServer('replica 1', serve(db), { cwd: ROOT, timeoutMs: 15_000 }))
    servers.push(await startServer('replica 2', serve(db), { cwd: ROOT, timeoutMs: 15_000 }))
    return await fn(servers)
  } finally {
    for (const server of servers) await server.stop()
  }
}

const pg = await startTestPostgres({ production: true })
try {
  const root = new SQL(pg.url, { max: 1 })
  await root`CREATE DATABASE bench_connections`
  const db = pg.url.replace(/\/postgres$/, '/bench_connections')
  const org = await adminCommand(db, 'org', 'create', '--name', 'Bench')
  const client = await adminCommand(db, 'client', 'create', '--name', 'bench', '--org', org.id!)
  const [{ max }] = await root`SELECT current_setting('max_connections')::int AS max`
  const [{ reserved }] = await root`SELECT current_setting('superuser_reserved_connections')::int AS reserved`
  say(
    `PostgreSQL ${(await root`SHOW server_version`)[0].server_version}: max_connections = ${max}, superuser_reserved_connections = ${reserved}`,
  )

  // 1. One replica's connections under concurrent requests.
  const perReplica = await withReplicas(db, async ([one]) => {
    await burst(
      [one!],
      await clientToken(one!.url, { id: client.client_id!, secret: client.client_secret! }),
      200,
    )
    const [{ n }] =
      await root`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'bench_connections'`
    return n as number
  })
  say(`1. two replicas after 200 concurrent requests to one: ${perReplica} connections to the database`)

  // 2. Pools of one replica's size until PostgreSQL refuses.
  const size = Math.max(1, Math.round(perReplica / 2))
  const pools: SQL[] = []
  try {
    for (let i = 1; ; i++) {
      const pool = new SQL(db, { max: size, connectionTimeout: 5 })
      pools.push(pool)
      try {
        await Promise.all(Array.from({ length: size }, () => pool`SELECT pg_sleep(0.05)`))
      } catch (error) {
        say(
          `2. replica-sized pools (${size} connections each): pool ${i} is refused: ${(error as Error).message} (${(error as { errno?: string }).errno})`,
        )
        break
      }
      if (i > 100) break
    }
  } finally {
    for (const pool of pools) await pool.close()
  }

  // 3. PgBouncer.
  for (const mode of ['transaction', 'session'] as const) {
    // Session mode holds a server connection per client connection: room for both replicas' 22 and the probe's 10.
    const bouncer = await startPgbouncer(db, { mode, poolSize: mode === 'session' ? 40 : 20 })
    try {
      for (const url of mode === 'transaction'
        ? [bouncer.url, `${bouncer.url}?prepare=false`]
        : [bouncer.url]) {
        const label = `3. PgBouncer ${mode} mode, ${url.includes('prepare=false') ? '?prepare=false' : 'prepared statements'}`
        try {
          const line = await withReplicas(url, async (servers) => {
            const statuses = await burst(
              servers,
              await clientToken(servers[0]!.url, { id: client.client_id!, secret: client.client_secret! }),
              200,
            )
            return `200 reads over two replicas: ${JSON.stringify(statuses)}; ${await listenHears(url, db)}`
          })
          say(`${label}: ${line}`)
        } catch (error) {
          say(`${label}: ${(error as Error).message}`)
        }
      }
    } finally {
      await bouncer.stop()
    }
  }
  await root.close()
} finally {
  await pg.stop()
}
