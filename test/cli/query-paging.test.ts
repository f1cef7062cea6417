/**
 * `api query` pages like `api list`: `--limit` is the page size, written into the body; `--all`
 * follows the stored query's `pagination.next` and streams; without either, records left behind
 * are said on stderr. `--include-total` shows the server's count. Run as a real process (and on
 * a pseudo-terminal where the output is for a person), over 1,010 orders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { created, type Env, idsOf, seedUser } from './fixtures.ts'
import {
  jqAvailable,
  removeTempDirs,
  runCli,
  secret,
  spawnCli,
  spawnCliIntoJq,
  spawnCliOnTerminal,
  tempDir,
  terminalAvailable,
} from './harness.ts'

const PAID = 1005
const PENDING = 5
const PAID_SQL = "SELECT id FROM orders WHERE status = 'paid'"

let server: TestServer
let acme: Tenant
let env: Env
let paidIds: Set<string>

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
  const userId = await seedUser(acme)
  const statuses = [...Array(PAID).fill('paid'), ...Array(PENDING).fill('pending')] as string[]
  const orders: { id: string; status: string }[] = []
  for (let i = 0; i < statuses.length; i += 50) {
    const batch = statuses.slice(i, i + 50).map(async (status, j) => {
      const amount = { value: 100 * (i + j), currency: 'EUR' }
      const json = { userId, status, amount }
      return created(await acme.fetch('/api/v2/orders', { method: 'POST', json })) as never
    })
    orders.push(...(await Promise.all(batch)))
  }
  paidIds = new Set(orders.filter((o) => o.status === 'paid').map((o) => o.id))
}, 60_000)
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('api query paging', () => {
  it('prints the first page and says on stderr, in one line, that more records follow', async () => {
    const run = await spawnCli(['query', 'orders', '--sql', PAID_SQL], env)
    expect(run.code).toBe(0)
    expect(idsOf(run.stdout)).toHaveLength(20)
    expect(run.stderr).toBe('more records follow; --all fetches them\n')
  })

  it.skipIf(!jqAvailable)(
    'fetches every page with --all: api query orders --sql ... --all | jq length',
    async () => {
      const run = await spawnCliIntoJq(['query', 'orders', '--sql', PAID_SQL, '--all'], 'length', env)
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`${PAID}\n`)
    },
    30_000,
  )

  it('returns every matching record exactly once with --all, in pages of --limit', async () => {
    const run = await spawnCli(['query', 'orders', '--sql', PAID_SQL, '--all', '--limit', '100'], env)
    expect(run.code).toBe(0)
    const ids = idsOf(run.stdout)
    expect(ids).toHaveLength(PAID)
    expect(new Set(ids)).toEqual(paidIds)
  }, 30_000)

  it('asks with --limit for that page size and says nothing more', async () => {
    const run = await spawnCli(['query', 'orders', '--sql', PAID_SQL, '--limit', '7'], env)
    expect(run.code).toBe(0)
    expect(idsOf(run.stdout)).toHaveLength(7)
    expect(run.stderr).toBe('')
  })

  it('stops after --max-items records', async () => {
    const run = await spawnCli(['query', 'orders', '--sql', PAID_SQL, '--all', '--max-items', '250'], env)
    expect(run.code).toBe(0)
    expect(idsOf(run.stdout)).toHaveLength(250)
  })

  it('streams --all as NDJSON, one record per line', async () => {
    const run = await spawnCli(
      ['query', 'orders', '--form', 'status=pending', '--all', '--limit', '2', '--format', 'ndjson'],
      env,
    )
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).status),
    ).toEqual(Array(PENDING).fill('pending'))
  })

  const bodies: { name: string; args: string[]; sent: (r: { body?: string; url: URL }) => unknown }[] = [
    {
      name: 'a SQL LIMIT clause, before a trailing comment',
      args: ['--sql', `${PAID_SQL} -- the paid ones`],
      sent: (r) => r.body,
    },
    { name: 'limit= in a form body', args: ['--form', 'status=paid'], sent: (r) => r.body },
    { name: 'limit in a JSON body', args: ['--json', '{"status": "paid"}'], sent: (r) => r.body },
    { name: "JSONPath's URL", args: ['--jsonpath', "$[?@.status == 'paid']"], sent: (r) => r.url.search },
  ]
  const expected = [
    `${PAID_SQL} LIMIT 3 -- the paid ones`,
    'status=paid&limit=3',
    '{"status":"paid","limit":3}',
    '?limit=3',
  ]
  bodies.forEach(({ name, args, sent }, i) => {
    it(`writes --limit as ${name}, and follows the stored query's next page with --all`, async () => {
      const run = await runCli(['query', 'orders', ...args, '--limit', '3', '--all', '--max-items', '7'], {
        env,
      })
      expect(run.code).toBe(0)
      expect(sent(run.requests[0]!)).toBe(expected[i])
      expect(idsOf(run.stdout)).toHaveLength(7)
      expect(run.requests.map((r) => r.method)).toEqual(['QUERY', 'GET', 'GET'])
      expect(run.requests[1]!.url.pathname).toStartWith('/api/v2/queries/qry_')
    })
  })

  it('writes each page before asking for the next (constant memory)', async () => {
    const written: number[] = []
    await runCli(['query', 'orders', '--form', 'status=paid', '--all', '--limit', '4', '--max-items', '12'], {
      env: { ...env },
      fetch: (input, init, sofar) => {
        written.push(sofar.stdout.split('\n').filter((line) => line.startsWith('{')).length)
        return fetch(input, init)
      },
    })
    expect(written).toEqual([0, 4, 8])
  })

  it('keeps a page size the query already has (LIMIT) with --all', async () => {
    const run = await runCli(
      ['query', 'orders', '--sql', `${PAID_SQL} LIMIT 5`, '--all', '--max-items', '12'],
      { env },
    )
    expect(run.requests[0]!.body).toBe(`${PAID_SQL} LIMIT 5`)
    expect(idsOf(run.stdout)).toHaveLength(12)
    expect(run.requests).toHaveLength(3)
  })

  it('shows the 422 for LIMIT above the page maximum of 100 (use --all and --max-items)', async () => {
    const run = await spawnCli(['query', 'orders', '--sql', `${PAID_SQL} LIMIT 500`], env)
    expect(run.code).toBe(1)
    expect(run.stderr).toStartWith('error VALIDATION_ERROR (422)')
  })

  const usage: { args: string[]; message: string }[] = [
    {
      args: ['--sql', `${PAID_SQL} LIMIT 5`, '--limit', '10'],
      message: 'give the page size once: --limit or the LIMIT of the query',
    },
    {
      args: ['--form', 'limit=5', '--limit', '10'],
      message: 'give the page size once: --limit or the limit of the query',
    },
    { args: ['--sql', `${PAID_SQL} LIMIT 5 OFFSET 10`, '--all'], message: 'leave OFFSET out' },
    { args: ['--json', '{"offset": 10}', '--all'], message: 'leave offset out' },
    { args: ['--sql', PAID_SQL, '--limit', '500'], message: '--limit takes a whole number from 1 to 100' },
    { args: ['--sql', PAID_SQL, '--max-items', '0'], message: '--max-items takes a whole number' },
  ]
  for (const { args, message } of usage) {
    it(`exits 2 before any request: api query orders ${args.join(' ')}`, async () => {
      const run = await spawnCli(['query', 'orders', ...args], env)
      expect(run.code).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain(message)
    })
  }
})

describe('api query tables', () => {
  it.skipIf(!terminalAvailable)(
    "shows a SQL column list's columns, in that order, with money as 1,234.00 EUR",
    async () => {
      const run = await spawnCliOnTerminal(
        ['query', 'orders', '--sql', 'SELECT amount, status, id FROM orders ORDER BY amount DESC LIMIT 2'],
        { ...env, NO_COLOR: '1' },
      )
      expect(run.code).toBe(0)
      const [header, ...rows] = run.output.trimEnd().split('\n')
      expect(header).toMatch(/^AMOUNT +STATUS +ID$/)
      expect(rows).toEqual([
        expect.stringMatching(/^1,009\.00 EUR +pending +ord_\w+$/),
        expect.stringMatching(/^1,008\.00 EUR +pending +ord_\w+$/),
        // A person at a terminal is told, whatever page size was asked for.
        'more records follow; --all fetches them',
      ])
    },
  )
})

describe('--include-total', () => {
  it.skipIf(!terminalAvailable)('ends the table with a footer on a terminal: 20 of 1,010', async () => {
    const run = await spawnCliOnTerminal(['list', 'orders', '--include-total'], { ...env, NO_COLOR: '1' })
    expect(run.code).toBe(0)
    const lines = run.output.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +USER ID +STATUS +AMOUNT +CREATED AT$/)
    expect(lines).toHaveLength(1 + 20 + 2)
    expect(lines.at(-2)).toBe('20 of 1,010')
    expect(lines.at(-1)).toBe('more records follow; --all fetches them')
  })

  it('prints the count on stderr when piped, the JSON on stdout staying a plain array', async () => {
    const run = await spawnCli(['list', 'orders', '--status', 'paid', '--include-total', '--limit', '5'], env)
    expect(run.code).toBe(0)
    expect(idsOf(run.stdout)).toHaveLength(5)
    expect(run.stderr).toBe('5 of 1,005 orders\n')
  })

  it('counts what --all printed', async () => {
    const run = await spawnCli(['list', 'orders', '--status', 'pending', '--include-total', '--all'], env)
    expect(run.stderr).toBe('5 of 5 orders\n')
  })

  it('shows the total of a QUERY that asks for one', async () => {
    const run = await spawnCli(
      ['query', 'orders', '--form', 'status=paid', '--form', 'include_total=true'],
      env,
    )
    expect(run.stderr).toBe('20 of 1,005 orders\nmore records follow; --all fetches them\n')
  })
})
