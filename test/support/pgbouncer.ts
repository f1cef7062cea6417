/**
 * A throwaway PgBouncer (Debian's `pgbouncer` package) in front of a PostgreSQL URL, for the tests
 * of replicas behind a pooler, the benchmark and the connection experiments: trust authentication
 * on loopback, one pool per database and user, `pool_mode` as asked. Run as the `postgres` user
 * when this process is root (PgBouncer refuses to run as root).
 */
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Pgbouncer {
  /** `url` with PgBouncer's host and port instead of PostgreSQL's. */
  url: string
  stop: () => Promise<void>
}

const hasPgbouncer = (): boolean => Bun.which('pgbouncer', { PATH: '/usr/sbin:/usr/bin' }) !== null

/** Installed, or in CI (.ci/run installs Debian's pgbouncer), where a missing one fails the tests. */
export const pgbouncerAvailable = (): boolean => hasPgbouncer() || process.env.CI !== undefined

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

const asPostgres = (command: string[]) =>
  process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command

/**
 * Starts PgBouncer for the database of `postgresUrl`, `poolSize` server connections per database
 * and user, and returns the URL to give the product instead.
 */
export async function startPgbouncer(
  postgresUrl: string,
  options: { mode: 'session' | 'transaction'; poolSize: number; maxClients?: number },
): Promise<Pgbouncer> {
  const target = new URL(postgresUrl)
  const dir = mkdtempSync(join(tmpdir(), 'api-pgbouncer-'))
  const port = freePort()
  const database = target.pathname.slice(1)
  const ini = `[databases]
${database} = host=${target.hostname} port=${target.port} dbname=${database}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = ${options.mode}
default_pool_size = ${options.poolSize}
max_client_conn = ${options.maxClients ?? 1000}
logfile = ${join(dir, 'pgbouncer.log')}
pidfile = ${join(dir, 'pgbouncer.pid')}
admin_users = ${decodeURIComponent(target.username)}
`
  writeFileSync(join(dir, 'pgbouncer.ini'), ini)
  writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(target.username)}" ""\n`)
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(Bun.spawnSync(['id', flag, 'postgres']).stdout.toString())
    chownSync(dir, id('-u'), id('-g'))
    for (const file of ['pgbouncer.ini', 'users.txt']) chownSync(join(dir, file), id('-u'), id('-g'))
  }
  const child = Bun.spawn(asPostgres(['/usr/sbin/pgbouncer', join(dir, 'pgbouncer.ini')]), {
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const url = new URL(postgresUrl)
  url.port = String(port)
  const deadline = Date.now() + 10_000
  for (;;) {
    const probe = new Bun.SQL(url.toString(), { max: 1, connectionTimeout: 1, prepare: false })
    try {
      await probe`SELECT 1`
      break
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill()
        throw new Error(`PgBouncer did not start: ${await new Response(child.stderr).text()} ${error}`)
      }
      await Bun.sleep(100)
    } finally {
      await probe.close()
    }
  }
  return {
    url: url.toString(),
    stop: async () => {
      // PgBouncer itself, by its pid file: a signal to runuser does not reach it.
      const pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim())
      process.kill(pid, 'SIGINT')
      await child.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
