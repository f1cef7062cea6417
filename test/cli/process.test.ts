/** The CLI as a real process: piped output, exit statuses, and what goes to stdout and stderr. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, type Order, seedOrders, seedUser } from './fixtures.ts'
import { jqAvailable, removeTempDirs, secret, spawnCli, spawnCliIntoJq, tempDir } from './harness.ts'

let server: TestServer
let acme: Tenant
let env: Env
let orders: Order[]
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  secret(acme.token, acme.clientSecret)
  env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  const login = await spawnCli(['login', '--client-credentials'], {
    ...env,
    API_CLIENT_ID: acme.clientId,
    API_CLIENT_SECRET: acme.clientSecret,
  })
  if (login.code !== 0) throw new Error(login.stderr)
  userId = await seedUser(acme)
  orders = await seedOrders(
    acme,
    userId,
    Array.from({ length: 25 }, (_, i) => ({ amount: 100 + i, status: i % 5 === 0 ? 'pending' : 'paid' })),
  )
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('api as a process', () => {
  it('prints every paid order of api list orders --status paid --all as one JSON array when piped', async () => {
    const run = await spawnCli(['list', 'orders', '--status', 'paid', '--all', '--limit', '7'], env)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const listed = JSON.parse(run.stdout) as Order[]
    expect(listed).toHaveLength(20)
    expect(listed.every((o) => o.status === 'paid')).toBe(true)
    expect(new Set(listed.map((o) => o.id)).size).toBe(20)
  })

  it('says on stderr, in the words of api query, that more records follow a piped first page', async () => {
    const listed = await spawnCli(['list', 'orders'], env)
    expect(listed.code).toBe(0)
    expect((JSON.parse(listed.stdout) as Order[]).length).toBe(20)
    expect(listed.stderr).toBe('more records follow; --all fetches them\n')
    const queried = await spawnCli(['query', 'orders', '--form', 'sort=-created_at'], env)
    expect(queried.stderr).toBe(listed.stderr)
  })

  const chosen: string[][] = [['--limit', '5'], ['--max-items', '5'], ['--all']]
  for (const args of chosen) {
    it(`leaves stderr quiet when the script chose how many: api list orders ${args.join(' ')}`, async () => {
      const run = await spawnCli(['list', 'orders', ...args], env)
      expect(run.code).toBe(0)
      expect(run.stderr).toBe('')
    })
  }

  it.skipIf(!jqAvailable)(
    'feeds jq in a pipeline: api list orders --status paid --all | jq length',
    async () => {
      const run = await spawnCliIntoJq(['list', 'orders', '--status', 'paid', '--all'], 'length', env)
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`${orders.filter((o) => o.status === 'paid').length}\n`)
    },
  )

  it('prints one line per record with --format ndjson', async () => {
    const run = await spawnCli(['list', 'orders', '--all', '--format', 'ndjson'], env)
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(25)
  })

  it('keeps data on stdout and messages on stderr', async () => {
    const created = await spawnCli(
      ['create', 'orders', `userId=${userId}`, 'amount[value]:=1', 'amount[currency]=EUR'],
      env,
    )
    expect(created.code).toBe(0)
    expect(created.stderr).toBe('')
    expect(JSON.parse(created.stdout)).toMatchObject({ amount: { value: 1, currency: 'EUR' } })
    const failed = await spawnCli(['create', 'orders', 'amount[value]:=1', 'amount[currency]=EUR'], env)
    expect(failed.code).toBe(1)
    expect(failed.stdout).toBe('')
    expect(failed.stderr).toStartWith('error VALIDATION_ERROR (422)')
  })

  it('reads --data @- from standard input', async () => {
    const body = JSON.stringify({ userId, amount: { value: 2, currency: 'EUR' } })
    const run = await spawnCli(['create', 'orders', '--data', '@-'], env, body)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ userId, amount: { value: 2, currency: 'EUR' } })
  })

  const colours: { name: string; extra: Env; colored: boolean }[] = [
    { name: 'FORCE_COLOR=1', extra: { FORCE_COLOR: '1' }, colored: true },
    { name: 'NO_COLOR=1 and FORCE_COLOR=1', extra: { FORCE_COLOR: '1', NO_COLOR: '1' }, colored: false },
    { name: 'neither (piped)', extra: {}, colored: false },
  ]
  for (const { name, extra, colored } of colours) {
    it(`${colored ? 'colours' : 'does not colour'} a piped table with ${name}`, async () => {
      const run = await spawnCli(['list', 'orders', '--format', 'table', '--limit', '2'], {
        ...env,
        ...extra,
      })
      expect(run.stdout.includes('\u001b[')).toBe(colored)
    })
  }

  const statuses: { status: number; meaning: string; args: string[]; env: () => Env }[] = [
    { status: 0, meaning: 'success', args: ['get', 'orders', 'ORDER'], env: () => env },
    {
      status: 1,
      meaning: 'an API error',
      args: ['get', 'orders', 'ord_00000000000000000000000000'],
      env: () => env,
    },
    { status: 2, meaning: 'a usage error', args: ['list', 'orders', '--stauts', 'paid'], env: () => env },
    {
      status: 3,
      meaning: 'an unreachable server',
      // A POST without Idempotency-Key is not retried: no real backoff to wait for.
      args: ['request', 'POST', '/api/v2/users', 'name=X'],
      env: () => ({ ...env, API_URL: 'http://127.0.0.1:9', API_TOKEN: 'token-for-nowhere-0123' }),
    },
    {
      status: 4,
      meaning: 'no login',
      args: ['list', 'orders'],
      env: () => ({ API_URL: server.url, XDG_CONFIG_HOME: tempDir() }),
    },
    {
      status: 4,
      meaning: 'a rejected API_TOKEN',
      args: ['list', 'orders'],
      env: () => ({ ...env, API_TOKEN: 'rejected-token-0123456' }),
    },
  ]
  for (const { status, meaning, args, env: runEnv } of statuses) {
    it(`exits ${status} for ${meaning}`, async () => {
      const argv = args.map((a) => (a === 'ORDER' ? orders[0]!.id : a))
      const run = await spawnCli(argv, runEnv())
      expect(run.code).toBe(status)
      if (status === 0) expect(run.stderr).toBe('')
      else expect(run.stderr.trim().split('\n').length).toBeGreaterThanOrEqual(1)
    }, 15_000)
  }
})
