import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Env, loggedInEnv, type Order, seedOrders, seedUser } from '../cli/fixtures.ts'
import { removeTempDirs, runCli, spawnCli, spawnCliOnTerminal, terminalAvailable } from '../cli/harness.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { groupsOf, keysOf } from './expected.ts'

/** `api aggregate` as a user runs it: the real CLI as a process against a real server. */

let server: TestServer
let env: Env
let orders: Order[]

beforeAll(async () => {
  server = await startTestServer()
  const tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  const userId = await seedUser(tenant)
  const amounts = [50, 120, 300, 80, 450, 100, 220]
  orders = await seedOrders(
    tenant,
    userId,
    amounts.map((amount, i) => ({ amount, status: ['paid', 'pending', 'shipped'][i % 3]! })),
  )
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('api aggregate', () => {
  it('prints the groups as JSON when piped', async () => {
    const run = await spawnCli(
      ['aggregate', 'orders', '--group-by', 'status', '--count', '--sum', 'amount'],
      env,
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual(groupsOf(orders, keysOf('status'), { sum: ['amount'] }))
  })

  it('takes the filters of api list, several functions, a sort and --all over pages', async () => {
    const run = await spawnCli(
      [
        'aggregate',
        'orders',
        '--group-by',
        'status',
        '--amount-gte',
        '100',
        '--avg',
        'amount',
        '--max',
        'amount',
        '--count',
        '--sort',
        '-count',
        '--limit',
        '1',
        '--all',
      ],
      env,
    )
    expect(run.code).toBe(0)
    const kept = orders.filter((o) => o.amount >= 100)
    const expected = groupsOf(kept, keysOf('status'), { avg: ['amount'], max: ['amount'] }).sort(
      (a, b) => (b.count as number) - (a.count as number) || String(a.status).localeCompare(String(b.status)),
    )
    expect(JSON.parse(run.stdout)).toEqual(expected)
  })

  it('shows a table with a column per key and aggregate (--format table)', async () => {
    const run = await runCli(
      ['aggregate', 'orders', '--group-by', 'status', '--count', '--sum', 'amount', '--format', 'table'],
      { env: { ...env, NO_COLOR: '1' } },
    )
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]!.split(/\s+/)).toEqual(['STATUS', 'COUNT', 'SUM(AMOUNT)'])
    const paid = orders.filter((o) => o.status === 'paid')
    expect(lines).toContain(
      `paid     ${String(paid.length).padEnd(5)}  ${paid.reduce((s, o) => s + o.amount, 0)}`,
    )
  })

  it.skipIf(!terminalAvailable)('draws the table on a terminal', async () => {
    const run = await spawnCliOnTerminal(['aggregate', 'orders', '--group-by', 'created_at:day', '--count'], {
      ...env,
      NO_COLOR: '1',
    })
    expect(run.code).toBe(0)
    expect(run.output).toMatch(/^CREATED AT\s+COUNT\n\d{4}-\d{2}-\d{2}T00:00:00\.000Z\s+7\n/)
  })

  it('names a typo in a filter before any request (exit 2), and the server refuses a bad key (exit 1)', async () => {
    const typo = await spawnCli(['aggregate', 'orders', '--stauts', 'paid'], env)
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('--status')
    const bad = await spawnCli(['aggregate', 'orders', '--group-by', 'bogus'], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('group_by')
  })
})
