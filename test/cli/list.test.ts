import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { filterFlags } from '../../cli/resources.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { type Env, idsOf, loggedInEnv, type Order, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli } from './harness.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let env: Env
let orders: Order[]
/** The list order of the seeded orders: newest first. */
let newestFirst: Order[]

beforeAll(async () => {
  server = await startTestServer()
  const tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  const userId = await seedUser(tenant)
  const amounts = [50, 120, 300, 80, 450, 100, 220]
  orders = await seedOrders(
    tenant,
    userId,
    amounts.map((amount, i) => ({ amount, status: i % 2 === 0 ? 'paid' : 'pending' })),
  )
  newestFirst = [...orders].reverse()
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const ids = (list: Order[]) => list.map((o) => o.id)

describe('api list', () => {
  const cases: { name: string; args: () => string[]; expected: () => Order[] }[] = [
    {
      name: '--status paid',
      args: () => ['--status', 'paid'],
      expected: () => newestFirst.filter((o) => o.status === 'paid'),
    },
    {
      name: '--amount-gte 100',
      args: () => ['--amount-gte', '100'],
      expected: () => newestFirst.filter((o) => o.amount >= 100),
    },
    {
      name: '--amount-lte 100',
      args: () => ['--amount-lte', '100'],
      expected: () => newestFirst.filter((o) => o.amount <= 100),
    },
    {
      name: '--status pending --amount-gte 100',
      args: () => ['--status', 'pending', '--amount-gte', '100'],
      expected: () => newestFirst.filter((o) => o.status === 'pending' && o.amount >= 100),
    },
    {
      name: '--created-after 2026-01-01',
      args: () => ['--created-after', '2026-01-01'],
      expected: () => newestFirst,
    },
    {
      name: '--created-before 2000-01-01',
      args: () => ['--created-before', '2000-01-01'],
      expected: () => [],
    },
    {
      name: '--created-after the third order',
      args: () => ['--created-after', orders[2]!.createdAt],
      expected: () => newestFirst.filter((o) => o.createdAt > orders[2]!.createdAt),
    },
    {
      name: '--sort -amount',
      args: () => ['--sort', '-amount'],
      expected: () => [...orders].sort((a, b) => b.amount - a.amount),
    },
    {
      name: '--sort amount',
      args: () => ['--sort=amount'],
      expected: () => [...orders].sort((a, b) => a.amount - b.amount),
    },
  ]
  for (const { name, args, expected } of cases) {
    it(`filters with ${name} and sends it as the API's query parameter`, async () => {
      const run = await runCli(['list', 'orders', ...args()], { env })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(idsOf(run.stdout)).toEqual(ids(expected()))
      expect(run.requests).toHaveLength(1)
    })
  }

  it('sends --amount-gte as amount_gte and --created-after as created_after', async () => {
    const run = await runCli(['list', 'orders', '--amount-gte', '100', '--created-after', '2026-01-01'], {
      env,
    })
    const query = run.requests[0]!.url.searchParams
    expect(query.get('amount_gte')).toBe('100')
    expect(query.get('created_after')).toBe('2026-01-01')
    expect(query.get('limit')).toBe('20')
  })

  it('keeps a filter value exactly as typed (no number parsing)', async () => {
    const run = await runCli(['list', 'orders', '--amount-gte', '0100', '--limit', '3'], { env })
    expect(run.requests[0]!.url.searchParams.get('amount_gte')).toBe('0100')
  })

  it('returns at most --limit records, and says on a terminal that more follow', async () => {
    const piped = await runCli(['list', 'orders', '--limit', '3'], { env })
    expect(idsOf(piped.stdout)).toEqual(ids(newestFirst.slice(0, 3)))
    expect(piped.stderr).toBe('')
    const onTerminal = await runCli(['list', 'orders', '--limit', '3'], { env, tty: true })
    expect(onTerminal.stderr).toBe('more records follow; --all fetches them\n')
  })

  it('streams every page with --all as one JSON array', async () => {
    const run = await runCli(['list', 'orders', '--all', '--limit', '2'], { env })
    expect(run.code).toBe(0)
    expect(idsOf(run.stdout)).toEqual(ids(newestFirst))
    expect(run.requests).toHaveLength(4)
    expect(run.requests.slice(1).every((r) => r.url.searchParams.has('cursor'))).toBe(true)
  })

  it('uses pages of 100 with --all unless --limit says otherwise', async () => {
    const run = await runCli(['list', 'orders', '--all'], { env })
    expect(run.requests[0]!.url.searchParams.get('limit')).toBe('100')
    expect(idsOf(run.stdout)).toHaveLength(orders.length)
  })

  it('writes each page before asking for the next (constant memory)', async () => {
    const linesWrittenAtRequest: number[] = []
    const run = await runCli(['list', 'orders', '--all', '--limit', '2', '--format', 'ndjson'], {
      env,
      fetch: (input, init, sofar) => {
        linesWrittenAtRequest.push(sofar.stdout.split('\n').filter(Boolean).length)
        return fetch(input, init)
      },
    })
    expect(linesWrittenAtRequest).toEqual([0, 2, 4, 6])
    expect(run.stdout.trim().split('\n')).toHaveLength(orders.length)
  })

  it('stops after --max-items records and asks for no further page', async () => {
    const run = await runCli(['list', 'orders', '--all', '--limit', '2', '--max-items', '3'], { env })
    expect(idsOf(run.stdout)).toEqual(ids(newestFirst.slice(0, 3)))
    expect(run.requests).toHaveLength(2)
  })

  const progress = [
    { stderrIsTTY: true, expected: /\rfetched 7 records {3}\n$/ },
    { stderrIsTTY: false, expected: /^$/ },
  ]
  for (const { stderrIsTTY, expected } of progress) {
    it(`shows a progress line on stderr ${stderrIsTTY ? 'when stderr is a terminal' : 'never when stderr is piped'}`, async () => {
      const run = await runCli(['list', 'orders', '--all', '--limit', '3'], { env, stderrIsTTY })
      expect(run.stderr).toMatch(expected)
      expect(idsOf(run.stdout)).toHaveLength(7)
    })
  }

  it('searches with --q and counts with --include-total', async () => {
    const tenant = await server.tenant()
    const userEnv = { ...env, API_TOKEN: tenant.token }
    await seedUser(tenant, 'Grace Hopper')
    await seedUser(tenant, 'Alan Turing')
    const run = await runCli(['list', 'users', '--q', 'hopper', '--include-total', '--format', 'ndjson'], {
      env: userEnv,
    })
    expect(run.code).toBe(0)
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { name: string }).name),
    ).toEqual(['Grace Hopper'])
    expect(run.requests[0]!.url.searchParams.get('q')).toBe('hopper')
    expect(run.requests[0]!.url.searchParams.get('include_total')).toBe('true')
  })

  it('lists a nested collection: posts/ID/comments', async () => {
    const tenant = await server.tenant()
    const userEnv = { ...env, API_TOKEN: tenant.token }
    const authorId = await seedUser(tenant)
    const post = (await (
      await tenant.fetch('/api/v1/posts', { method: 'POST', json: { authorId, title: 'T', body: 'B' } })
    ).json()) as { id: string }
    for (const text of ['first', 'second'])
      await tenant.fetch(`/api/v1/posts/${post.id}/comments`, { method: 'POST', json: { authorId, text } })
    const run = await runCli(['list', `posts/${post.id}/comments`], { env: userEnv })
    expect(run.code).toBe(0)
    expect((JSON.parse(run.stdout) as { text: string }[]).map((c) => c.text)).toEqual(['second', 'first'])
    expect(run.requests[0]!.url.pathname).toBe(`/api/v2/posts/${post.id}/comments`)
  })

  it('prints one record per line with --format ndjson', async () => {
    const run = await runCli(['list', 'orders', '--status', 'paid', '--format', 'ndjson'], { env })
    const lines = run.stdout.trim().split('\n')
    expect(lines.map((line) => (JSON.parse(line) as Order).status)).toEqual(['paid', 'paid', 'paid', 'paid'])
  })

  it('catches a typo in a filter name before any request, with a suggestion', async () => {
    const run = await runCli(['list', 'orders', '--stauts', 'paid'], { env })
    expect(run.code).toBe(2)
    expect(run.requests).toHaveLength(0)
    expect(run.stderr).toContain('unknown filter --stauts for orders (did you mean --status?)')
    expect(run.stdout).toBe('')
  })

  it('rejects a filter of another collection before any request', async () => {
    const run = await runCli(['list', 'products', '--status', 'paid'], { env })
    expect(run.code).toBe(2)
    expect(run.requests).toHaveLength(0)
    expect(run.stderr).toContain('api list products --help')
  })

  it('suggests the collection meant by a typo', async () => {
    const run = await runCli(['list', 'ordres'], { env })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('did you mean orders?')
  })

  for (const limit of ['0', '101', 'ten']) {
    it(`rejects --limit ${limit} before any request`, async () => {
      const run = await runCli(['list', 'orders', '--limit', limit], { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('--limit takes a whole number from 1 to 100')
      expect(run.requests).toHaveLength(0)
    })
  }
})

describe('api list COLLECTION --help', () => {
  for (const resource of SCHEMA.resources) {
    it(`lists every filter and sort field of ${resource.name}`, async () => {
      const run = await runCli(['list', resource.name, '--help'], { env })
      expect(run.code).toBe(0)
      expect(run.requests).toHaveLength(0)
      for (const { flag } of filterFlags(resource)) expect(run.stdout).toContain(`--${flag} <value>`)
      const sortLine = run.stdout.split('\n').find((line) => line.includes('--sort <keys>'))!
      for (const field of resource.sortable) {
        expect(sortLine).toContain(field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
      }
    })
  }

  it('names the allowed values of an enum filter', async () => {
    const run = await runCli(['list', 'orders', '--help'], { env })
    expect(run.stdout).toMatch(
      /--status <value> +status equals .*pending, paid, shipped, delivered, cancelled/,
    )
  })
})
