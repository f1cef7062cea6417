/**
 * `npm run test:postgres [-- bun test arguments]`: the suite on PostgreSQL and Redis. Starts both
 * (Debian's packages, on free loopback ports, in temporary directories; or the servers that
 * `API_TEST_POSTGRES_URL` and `API_TEST_REDIS_URL` name), runs `bun test` with
 * `API_TEST_BACKEND=postgres` so that every test server gets a fresh PostgreSQL database and the
 * shared Redis, and stops them afterwards. Tests that are about SQLite itself (its file, backups,
 * pragmas) say so and run only in `npm test`.
 */
import { startTestPostgres } from '../test/support/postgres.ts'
import { startTestRedis } from '../test/support/redis.ts'

const postgres = await startTestPostgres()
const redis = await startTestRedis()
let code = 1
try {
  // The per-test timeout as `npm test` sets it (package.json): Bun reads it only from the command line.
  const child = Bun.spawn([process.execPath, 'test', '--timeout', '30000', ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit'],
    env: {
      ...process.env,
      API_TEST_BACKEND: 'postgres',
      API_TEST_POSTGRES_URL: postgres.url,
      API_TEST_REDIS_URL: redis.url,
    },
  })
  const stop = () => child.kill('SIGINT')
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  code = await child.exited
} finally {
  await redis.stop()
  await postgres.stop()
}
process.exit(code)
