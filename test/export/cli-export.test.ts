import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Env, loggedInEnv, type Order, seedOrders, seedUser } from '../cli/fixtures.ts'
import { removeTempDirs, runCli, spawnCli } from '../cli/harness.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { csvRows } from './support.ts'

let server: TestServer
let env: Env
let orders: Order[]

beforeAll(async () => {
  server = await startTestServer()
  const tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  const userId = await seedUser(tenant, 'Ada, "the" first')
  orders = await seedOrders(
    tenant,
    userId,
    Array.from({ length: 23 }, (_, i) => ({ amount: 10 * (i + 1), status: i % 3 ? 'paid' : 'pending' })),
  )
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const COLUMNS = ['id', 'userId', 'status', 'amount.value', 'amount.currency', 'createdAt', 'updatedAt']

describe('api aggregate --format csv', () => {
  it('exports every page of groups with --all, the header once', async () => {
    const run = await spawnCli(
      [
        'aggregate',
        'orders',
        '--group-by',
        'status',
        '--count',
        '--sum',
        'amount',
        '--format',
        'csv',
        '--all',
        '--limit',
        '1',
      ],
      env,
    )
    expect(run.code).toBe(0)
    const [header, ...rows] = csvRows(run.stdout)
    expect(header).toEqual(['status', 'count', 'sum.amount'])
    const sum = (status: string) =>
      orders.filter((o) => o.status === status).reduce((n, o) => n + o.amount, 0)
    expect(rows).toEqual([
      ['paid', '15', String(sum('paid'))],
      ['pending', '8', String(sum('pending'))],
    ])
  })
})

describe('api list --format csv', () => {
  it('exports every page with --all as one CSV, the header once, every record exactly once', async () => {
    const run = await spawnCli(['list', 'orders', '--format', 'csv', '--all', '--limit', '5'], env)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const [header, ...rows] = csvRows(run.stdout)
    expect(header).toEqual(COLUMNS)
    expect(rows.length).toBe(orders.length)
    expect(rows.map((r) => r[0]).sort()).toEqual(orders.map((o) => o.id).sort())
    expect(run.stdout.match(/^id,userId,/gm)?.length).toBe(1)
  })

  it('writes the filtered first page alone without --all, saying more records follow', async () => {
    const run = await spawnCli(['list', 'orders', '--format', 'csv', '--status', 'paid'], env)
    expect(run.code).toBe(0)
    const [header, ...rows] = csvRows(run.stdout)
    expect(header).toEqual(COLUMNS)
    expect(rows.length).toBe(15)
    expect(rows.every((r) => r[2] === 'paid')).toBe(true)
    expect(run.stderr).toBe('')
    const limited = await spawnCli(['list', 'orders', '--format', 'csv'], env)
    expect(csvRows(limited.stdout).length).toBe(21)
    expect(limited.stderr).toBe('more records follow; --all fetches them\n')
  })

  it('exports the server’s columns for --fields and --expand, and the count with --include-total', async () => {
    const run = await runCli(
      [
        'list',
        'orders',
        '--format',
        'csv',
        '--all',
        '--fields',
        'id,user.name',
        '--expand',
        'user',
        '--include-total',
      ],
      { env },
    )
    expect(run.code).toBe(0)
    const [header, first] = csvRows(run.stdout)
    expect(header).toEqual(['id', 'user.id', 'user.name'])
    expect(first![2]).toBe('Ada, "the" first')
    expect(run.stderr).toBe('23 orders in all\n')
    const lists = run.requests.filter((r) => r.url.pathname === '/api/v2/orders')
    expect(lists.length).toBe(1)
    expect(lists[0]!.headers.get('accept')).toBe('text/csv')
  })

  const refused: { args: string[]; message: string }[] = [
    { args: ['get', 'orders', 'ord_x', '--format', 'csv'], message: '--format csv is for api list' },
    {
      args: ['list', 'orders', '--format', 'csv', '--max-items', '3'],
      message: '--max-items does not apply',
    },
  ]
  for (const { args, message } of refused) {
    it(`refuses api ${args.join(' ')} as a usage error (exit 2)`, async () => {
      const run = await runCli(args, { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
      expect(run.stdout).toBe('')
    })
  }
})
