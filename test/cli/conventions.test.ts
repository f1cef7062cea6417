/**
 * The conventions users expect from a CLI, each run as a process against a real server: --verbose,
 * logging in while logged in, tables that fit the terminal, api request with URLs, repeated
 * filters, api update without fields, Ctrl-C and subscriptions the server ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, type Order, seedOrders, seedUser } from './fixtures.ts'
import {
  BUN,
  CLI,
  ROOT,
  removeTempDirs,
  secret,
  spawnCli,
  spawnCliOnTerminal,
  storedFile,
  tempDir,
  terminalAvailable,
} from './harness.ts'

let server: TestServer
let acme: Tenant
let env: Env
let orders: Order[]
let userId: string

const loginArgs = () => [
  'login',
  '--client-credentials',
  '--client-id',
  acme.clientId,
  '--client-secret',
  acme.clientSecret,
]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  secret(acme.token, acme.clientSecret)
  env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir(), NO_COLOR: '1' }
  const login = await spawnCli(loginArgs(), env)
  if (login.code !== 0) throw new Error(login.stderr)
  userId = await seedUser(acme, 'Ada Lovelace, Countess of Lovelace, who wrote the first program')
  orders = await seedOrders(acme, userId, [
    { amount: 100, status: 'paid' },
    { amount: 200, status: 'shipped' },
    { amount: 300, status: 'pending' },
  ])
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('--verbose', () => {
  it('prints the exchange on stderr with the bearer token hidden, and keeps stdout clean', async () => {
    const run = await spawnCli(['list', 'orders', '--status', 'paid', '--verbose'], env)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toHaveLength(1)
    expect(run.stderr).toContain(`> GET ${server.url}/api/v2/orders?status=paid&limit=20\n`)
    expect(run.stderr).toContain('> authorization: Bearer [redacted]\n')
    expect(run.stderr).toContain('< HTTP 200 OK\n')
    expect(run.stderr).toMatch(/^< content-type: application\/json/m)
  })

  it('hides the client secret and the tokens of a login (the token request and its Basic header)', async () => {
    const run = await spawnCli([...loginArgs(), '--force', '--verbose'], env)
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`> POST ${server.url}/oauth/token\n`)
    expect(run.stderr).toMatch(/\[redacted\]/)
    // spawnCli also fails the test if the secret or a stored token appears anywhere.
    expect(run.stderr).not.toContain(acme.clientSecret)
  })
})

describe('api login while logged in', () => {
  it('says who is logged in and needs --force when not on a terminal (exit 2, login kept)', async () => {
    const before = storedFile(env.XDG_CONFIG_HOME!)
    const run = await spawnCli(loginArgs(), env)
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `api: Logged in to ${server.url} as ${acme.clientId} (client credentials); to log in again: api login --force (or api logout first)\n`,
    )
    expect(storedFile(env.XDG_CONFIG_HOME!)).toEqual(before)
  })

  it.skipIf(!terminalAvailable)(
    'asks on a terminal, and keeps the login when the answer is not yes',
    async () => {
      const before = storedFile(env.XDG_CONFIG_HOME!)
      const run = await spawnCliOnTerminal(loginArgs(), env)
      expect(run.output).toContain(
        `Logged in to ${server.url} as ${acme.clientId} (client credentials). Log in again? [y/N]`,
      )
      expect(run.output).toContain('api: still logged in as before')
      expect(run.code).toBe(2)
      expect(storedFile(env.XDG_CONFIG_HOME!)).toEqual(before)
    },
  )
})

describe.skipIf(!terminalAvailable)('on a terminal', () => {
  it('fits a table to the width of the terminal, cutting long cells (never an id) with an ellipsis', async () => {
    const run = await spawnCliOnTerminal(['list', 'users'], { ...env, COLUMNS: '60' })
    expect(run.code).toBe(0)
    const lines = run.output.trimEnd().split('\n')
    expect(lines[0]).toStartWith('ID')
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60)
    expect(lines[1]).toStartWith(`${userId}  `)
    expect(lines[1]).toContain('…')
  })

  it('keeps ids whole at 40 columns, leaving out the columns that do not fit', async () => {
    const run = await spawnCliOnTerminal(['list', 'users'], { ...env, COLUMNS: '40', NO_COLOR: '1' })
    expect(run.code).toBe(0)
    const lines = run.output.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID {30}\S/)
    expect(lines.some((line) => line.startsWith(`${userId}  `))).toBe(true)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40)
  })

  it('pretty-prints the JSON of api request', async () => {
    const run = await spawnCliOnTerminal(['request', 'GET', '/api/versions'], env)
    expect(run.code).toBe(0)
    expect(run.output).toStartWith('{\n  "data": [\n')
  })
})

describe('api request with a URL', () => {
  it('takes a full URL of the configured server', async () => {
    const run = await spawnCli(['request', 'GET', `${server.url}/api/v2/orders/${orders[0]!.id}`], env)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).id).toBe(orders[0]!.id)
  })

  it('refuses a URL of another server before sending the token there (exit 2)', async () => {
    const run = await spawnCli(['request', 'GET', 'http://127.0.0.2:9/api/v2/orders'], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `api: http://127.0.0.2:9 is not the configured server (${server.url}); the token is only sent there\n`,
    )
  })
})

describe('filters and fields', () => {
  it('sends a repeated filter as the comma list the server takes', async () => {
    const run = await spawnCli(
      ['list', 'orders', '--status', 'paid', '--status', 'shipped', '--verbose'],
      env,
    )
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('/api/v2/orders?status=paid%2Cshipped&limit=20')
    expect(
      JSON.parse(run.stdout)
        .map((o: Order) => o.status)
        .sort(),
    ).toEqual(['paid', 'shipped'])
  })

  it('refuses a range bound given twice (exit 2)', async () => {
    const run = await spawnCli(['list', 'orders', '--amount-gte', '1', '--amount-gte', '2'], env)
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'api: --amount-gte is given more than once\n' })
  })

  it('refuses api update without fields before any request (exit 2)', async () => {
    const run = await spawnCli(['update', 'orders', orders[0]!.id, '--verbose'], env)
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: api update needs the fields to change (key=value, key:=json) or --data\n',
    })
  })
})

describe('Ctrl-C and subscriptions', () => {
  const subscription = 'subscription { events(types: ["order.created"]) { type resourceId } }'

  it('exits 130 at Ctrl-C during a subscription', async () => {
    const child = Bun.spawn([BUN, CLI, 'graphql', subscription], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    await Bun.sleep(1000)
    child.kill('SIGINT')
    expect(await child.exited).toBe(130)
  })

  it('exits 1 with a message when the server ends a subscription', async () => {
    const stub = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response('event: next\ndata: {"data":{"events":{"type":"order.created"}}}\n\n', {
          headers: { 'Content-Type': 'text/event-stream' },
        }),
    })
    const run = await spawnCli(['graphql', subscription], {
      ...env,
      API_URL: stub.url.origin,
      API_TOKEN: 'sub-token-0123456789',
    })
    stub.stop(true)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('{"data":{"events":{"type":"order.created"}}}\n')
    expect(run.stderr).toBe('api: the server ended the subscription\n')
  })

  it('exits 130 at Ctrl-C while waiting for an answer', async () => {
    const stub = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Promise<Response>(() => {}) })
    const child = Bun.spawn([BUN, CLI, 'list', 'orders'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        API_URL: stub.url.origin,
        API_TOKEN: 'wait-token-0123456789',
        XDG_CONFIG_HOME: tempDir(),
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    await Bun.sleep(700)
    child.kill('SIGINT')
    const code = await child.exited
    stub.stop(true)
    expect(code).toBe(130)
  })
})
