import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A real PostgreSQL server for tests: `API_TEST_POSTGRES_URL` when set (a database the tests may
 * fill and empty), otherwise one started from Debian's `postgresql` package in a temporary
 * directory on a free loopback port, owned by the `postgres` user (initdb refuses root), and
 * stopped when the tests are done.
 */
export interface TestPostgres {
  /** The server's URL with the maintenance database; `database(name)` makes one per test file. */
  url: string
  /**
   * A fresh empty database on the server; returns its URL. `icuLocale` gives it that default
   * collation (`en-US`, ICU), as a production database created under a language's locale has, so
   * that a test can show what does not depend on it.
   */
  database: (name: string, options?: DatabaseOptions) => Promise<string>
  /** The postmaster's process id (a started server only): it and its children are its CPU. */
  pid: () => number
  /**
   * Stops the server and keeps its data (a started server only): `immediate` as a crash does,
   * every connection cut at once with no shutdown checkpoint; `fast` as an operator does, each
   * session told 57P01 (admin_shutdown). `startAgain` brings it back on the same port.
   */
  stopServer: (mode: 'immediate' | 'fast') => Promise<void>
  startAgain: () => Promise<void>
  stop: () => Promise<void>
}

interface StartOptions {
  /** A server of its own, which the test may stop and start again, even when `API_TEST_POSTGRES_URL` is set. */
  own?: boolean
  /**
   * The server's own defaults, as a production one has them (`fsync`, `synchronous_commit` on,
   * `max_connections = 100`), for benchmarks of what a commit costs; always a server of its own.
   * Without it the tests' server: nothing flushed, 300 connections.
   */
  production?: boolean
}

export interface DatabaseOptions {
  icuLocale?: string
}

function binaries(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] && join(root, versions[0], 'bin')
}

/** The path of one of PostgreSQL's programs (`psql`), from the newest installed version. */
export function postgresProgram(name: string): string {
  const bin = binaries()
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)')
  return join(bin, name)
}

/** Whether tests can get a PostgreSQL server here. */
export const postgresAvailable = (): boolean =>
  process.env.API_TEST_POSTGRES_URL !== undefined ||
  binaries() !== undefined ||
  // In CI (.ci/run installs Debian's postgresql) a missing server fails the tests rather than skipping them.
  process.env.CI !== undefined

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

async function run(command: string[]): Promise<string> {
  const proc = Bun.spawn(command, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`${command.join(' ')} failed (${code}): ${err || out}`)
  return out
}

const asPostgres = (command: string[]) =>
  process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command

async function createDatabase(url: string, name: string, options: DatabaseOptions = {}): Promise<string> {
  if (!/^\w+$/.test(name)) throw new Error(`not a database name for tests: ${name}`)
  const locale = options.icuLocale
  if (locale !== undefined && !/^[\w-]+$/.test(locale)) throw new Error(`not an ICU locale: ${locale}`)
  const admin = new Bun.SQL(url, { max: 1 })
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.unsafe(
      locale === undefined
        ? `CREATE DATABASE "${name}"`
        : `CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${locale}'`,
    )
  } finally {
    await admin.close()
  }
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}

/** A test server's settings: nothing here must survive a power cut; statements can be counted. */
const TEST_SETTINGS = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'max_connections=300',
  // Lets a test count the statements a request ran (test/support/backend.ts, statementsOf).
  '-c',
  'shared_preload_libraries=pg_stat_statements',
  '-c',
  'pg_stat_statements.track=all',
]

export async function startTestPostgres(start: StartOptions = {}): Promise<TestPostgres> {
  const given = start.production || start.own ? undefined : process.env.API_TEST_POSTGRES_URL
  if (given) {
    const notOurs = () => {
      throw new Error('API_TEST_POSTGRES_URL names a server this process did not start')
    }
    return {
      url: given,
      database: (name, options) => createDatabase(given, name, options),
      pid: notOurs,
      stopServer: async () => notOurs(),
      startAgain: async () => notOurs(),
      stop: async () => {},
    }
  }
  const bin = binaries()
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)')
  const dir = mkdtempSync(join(tmpdir(), 'api-pg-'))
  if (process.getuid?.() === 0) {
    const { uid, gid } = Bun.spawnSync(['id', '-u', 'postgres']).success
      ? {
          uid: Number(Bun.spawnSync(['id', '-u', 'postgres']).stdout.toString()),
          gid: Number(Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString()),
        }
      : { uid: 0, gid: 0 }
    chownSync(dir, uid, gid)
  }
  const data = join(dir, 'data')
  await run(asPostgres([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8']))
  const port = await freePort()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const launch = async () => {
    const server = Bun.spawn(
      asPostgres([
        join(bin, 'postgres'),
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        ...(start.production ? [] : TEST_SETTINGS),
      ]),
      { stdout: 'ignore', stderr: 'pipe' },
    )
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        const probe = new Bun.SQL(url, { max: 1, connectionTimeout: 1 })
        await probe`SELECT 1`
        await probe.close()
        return server
      } catch (error) {
        if (server.exitCode !== null || Date.now() > deadline) {
          server.kill()
          throw new Error(`PostgreSQL did not start: ${await new Response(server.stderr).text()} ${error}`)
        }
        await Bun.sleep(100)
      }
    }
  }
  let server = await launch()
  let running = true
  // pg_ctl, as the server's own user: a signal to runuser does not reach the server.
  const pgCtlStop = (mode: string) =>
    run(asPostgres([join(bin, 'pg_ctl'), '-D', data, '-m', mode, '-w', 'stop']))
  return {
    url,
    database: (name, options) => createDatabase(url, name, options),
    // runuser's child: the server itself.
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stopServer: async (mode) => {
      running = false
      await pgCtlStop(mode)
      await server.exited
    },
    startAgain: async () => {
      server = await launch()
      running = true
    },
    stop: async () => {
      if (running)
        await pgCtlStop('fast').catch(() => {
          server.kill('SIGKILL')
        })
      await server.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
