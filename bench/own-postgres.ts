/**
 * A throwaway PostgreSQL for the write benchmark with the server's own defaults, as a production
 * one has them: `fsync = on`, `synchronous_commit = on` (every commit flushed to disk before it is
 * acknowledged), `max_connections = 100`. (The tests' server, test/support/postgres.ts, turns
 * flushing off, which would hide what a commit costs.) Debian's `postgresql` package, in a
 * temporary directory on a free loopback port, run as the `postgres` user when this is root.
 */
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface OwnPostgres {
  /** The maintenance database's URL. */
  url: string
  /** The postmaster's process id: it and its children are the database's CPU. */
  pid: () => number
  stop: () => Promise<void>
}

const asPostgres = (command: string[]) =>
  process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command

function binaries(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    : []
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
  if (!newest) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)')
  return join(root, newest, 'bin')
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binaries()
  const dir = mkdtempSync(join(tmpdir(), 'api-bench-pg-'))
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(Bun.spawnSync(['id', flag, 'postgres']).stdout.toString())
    chownSync(dir, id('-u'), id('-g'))
  }
  const data = join(dir, 'data')
  const init = Bun.spawnSync(asPostgres([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres']))
  if (!init.success) throw new Error(`initdb failed: ${init.stderr.toString()}`)
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
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
    ]),
    { stdout: 'ignore', stderr: 'ignore' },
  )
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const deadline = Date.now() + 30_000
  for (;;) {
    const sql = new Bun.SQL(url, { max: 1, connectionTimeout: 1 })
    try {
      await sql`SELECT 1`
      break
    } catch (error) {
      if (server.exitCode !== null || Date.now() > deadline)
        throw new Error(`PostgreSQL did not start: ${error}`)
      await Bun.sleep(100)
    } finally {
      await sql.close()
    }
  }
  return {
    url,
    // runuser's child: the server itself.
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: async () => {
      Bun.spawnSync(asPostgres([join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']))
      await server.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
