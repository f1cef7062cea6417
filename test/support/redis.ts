import { existsSync } from 'node:fs'

/**
 * A real Redis for tests: Debian's `redis-server` on a free loopback port, nothing persisted,
 * stopped when the tests are done; `API_TEST_REDIS_URL` instead when set.
 */
export interface TestRedis {
  url: string
  stop: () => Promise<void>
}

const REDIS_SERVER = '/usr/bin/redis-server'

/** Whether tests can get a Redis here (in CI, .ci/run installs it: a missing one fails there). */
export const redisAvailable = (): boolean =>
  process.env.API_TEST_REDIS_URL !== undefined || existsSync(REDIS_SERVER) || process.env.CI !== undefined

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = server
  server.stop(true)
  return port
}

interface RedisOptions {
  /** A server of its own, which the test may stop and start again, even when `API_TEST_REDIS_URL` is set. */
  own?: boolean
  /** The port to listen on (a free one by default): a restarted server at the same URL. */
  port?: number
}

export async function startTestRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const given = process.env.API_TEST_REDIS_URL
  if (given && !options.own) return { url: given, stop: async () => {} }
  const port = options.port ?? (await freePort())
  const server = Bun.spawn(
    [REDIS_SERVER, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    const client = new Bun.RedisClient(url, { connectionTimeout: 500, autoReconnect: false })
    try {
      await client.send('PING', [])
      client.close()
      break
    } catch {
      client.close()
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill()
        throw new Error(`redis-server did not start: ${await new Response(server.stderr).text()}`)
      }
      await Bun.sleep(50)
    }
  }
  return {
    url,
    stop: async () => {
      server.kill()
      await server.exited
    },
  }
}
