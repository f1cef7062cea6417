import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import { listHelp } from '../../cli/commands/list.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { created, type Env, loggedInEnv, type Order, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, spawnCliOnTerminal, terminalAvailable } from './harness.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let tenant: Tenant
let env: Env
let userId: string
let orders: Order[]

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  userId = await seedUser(tenant)
})
beforeEach(async () => {
  await tenant.fetch('/api/v1/orders?confirm=orders', { method: 'DELETE' })
  orders = await seedOrders(tenant, userId, [
    { amount: 10, status: 'cancelled' },
    { amount: 20, status: 'paid' },
    { amount: 30, status: 'cancelled' },
  ])
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

async function remainingStatuses(): Promise<string[]> {
  const body = (await (await tenant.fetch('/api/v1/orders?sort=amount')).json()) as { data: Order[] }
  return body.data.map((o) => o.status)
}

describe('api delete ID', () => {
  it('deletes one record without asking, printing nothing on stdout', async () => {
    const run = await runCli(['delete', 'orders', orders[0]!.id], { env })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.questions).toEqual([])
    expect(run.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      `DELETE /api/v2/orders/${orders[0]!.id}`,
    ])
    expect(await remainingStatuses()).toEqual(['paid', 'cancelled'])
  })

  it('confirms on a terminal with a message on stderr', async () => {
    const run = await runCli(['delete', `orders/${orders[1]!.id}`], { env, tty: true })
    expect(run.stderr).toBe(`deleted ${orders[1]!.id}\n`)
  })

  it('exits 1 with the API error when the record does not exist', async () => {
    const run = await runCli(['delete', 'orders', orders[0]!.id], { env })
    expect(run.code).toBe(0)
    const again = await runCli(['delete', 'orders', orders[0]!.id], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('NOT_FOUND (404)')
  })
})

describe('api delete COLLECTION (every matching record)', () => {
  it('requires --confirm when not on a terminal, and sends nothing without it', async () => {
    const run = await runCli(['delete', 'orders', '--status', 'cancelled'], { env })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('needs --confirm when not on a terminal')
    expect(run.requests).toHaveLength(0)
    expect(await remainingStatuses()).toEqual(['cancelled', 'paid', 'cancelled'])
  })

  it('deletes only the records matching the filters with --confirm and prints the count', async () => {
    const run = await runCli(['delete', 'orders', '--status', 'cancelled', '--confirm'], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ deleted: 2 })
    const query = run.requests[0]!.url.searchParams
    expect(query.get('confirm')).toBe('orders')
    expect(query.get('status')).toBe('cancelled')
    expect(await remainingStatuses()).toEqual(['paid'])
  })

  it('asks on a terminal, saying how many go, and deletes the whole collection when the answer is yes', async () => {
    const run = await runCli(['delete', 'orders'], { env, tty: true, answer: true })
    expect(run.questions).toEqual(['Delete all 3 orders in /api/v2/orders?'])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ deleted: 3 })
    expect(await remainingStatuses()).toEqual([])
  })

  it('counts the matches in the question and deletes nothing when the answer is no', async () => {
    const run = await runCli(['delete', 'orders', '--status', 'cancelled'], { env, tty: true, answer: false })
    expect(run.questions).toEqual(['Delete 2 orders matching the filters in /api/v2/orders?'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('nothing deleted')
    expect(run.requests.map((r) => r.method)).toEqual(['GET'])
    expect(await remainingStatuses()).toHaveLength(3)
  })

  it.skipIf(!terminalAvailable)(
    'asks with the count as a process on a terminal: no keeps them, yes deletes them',
    async () => {
      const no = await spawnCliOnTerminal(['delete', 'orders', '--status', 'cancelled'], env, 'n\n')
      expect(no.output).toContain('Delete 2 orders matching the filters in /api/v2/orders? [y/N]')
      expect(no.output).toContain('nothing deleted')
      expect(no.code).toBe(2)
      expect(await remainingStatuses()).toEqual(['cancelled', 'paid', 'cancelled'])

      const yes = await spawnCliOnTerminal(['delete', 'orders', '--status', 'cancelled'], env, 'y\n')
      expect(yes.output).toContain('Delete 2 orders matching the filters in /api/v2/orders? [y/N]')
      expect(yes.code).toBe(0)
      expect(await remainingStatuses()).toEqual(['paid'])
    },
  )

  it('does not ask when stdin is not a terminal, even if stderr is', async () => {
    const run = await runCli(['delete', 'orders'], { env, stderrIsTTY: true, answer: true })
    expect(run.questions).toEqual([])
    expect(run.code).toBe(2)
  })

  it('catches a typo in a filter before asking or sending anything', async () => {
    const run = await runCli(['delete', 'orders', '--stats', 'paid', '--confirm'], { env, tty: true })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('did you mean --status?')
    expect(run.requests).toHaveLength(0)
    expect(await remainingStatuses()).toHaveLength(3)
  })

  it('shows the 403 when the token lacks the delete scope', async () => {
    const narrow = await server.tenant({ scope: ['read:orders', 'write:orders'] })
    const run = await runCli(['delete', 'orders', '--confirm'], { env: { ...env, API_TOKEN: narrow.token } })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('FORBIDDEN (403)')
    expect(run.stdout).toBe('')
  })
})

describe('api delete COLLECTION takes the filters of api list COLLECTION --help', () => {
  for (const resource of SCHEMA.resources.filter((r) => r.writable)) {
    const section = listHelp(SCHEMA, resource.name)
      .split('\n\n')
      .find((part) => part.startsWith('Filters:'))!
    const flags = [...section.matchAll(/^ {2}--([a-z0-9-]+) /gm)].map((m) => m[1]!)
    it(`takes ${flags.map((f) => `--${f}`).join(', ')} for ${resource.name}`, async () => {
      for (const flag of flags) {
        const value = /-(after|before)$/.test(flag) ? '2026-01-01' : 'x'
        const run = await runCli(['delete', resource.name, `--${flag}`, value], { env })
        // Past the options: only the missing --confirm stops it, before any request.
        expect(run.stderr).toContain('needs --confirm when not on a terminal')
        expect(run.requests).toHaveLength(0)
      }
    })
  }

  describe('--q', () => {
    let keep: string
    beforeEach(async () => {
      await tenant.fetch('/api/v2/posts?confirm=posts', { method: 'DELETE' })
      for (const title of ['tmp draft', 'tmp notes'])
        await created(
          await tenant.fetch('/api/v2/posts', { method: 'POST', json: { authorId: userId, title } }),
        )
      keep = (
        await created(
          await tenant.fetch('/api/v2/posts', {
            method: 'POST',
            json: { authorId: userId, title: 'Release' },
          }),
        )
      ).id as string
    })
    const remainingPosts = async () =>
      ((await (await tenant.fetch('/api/v2/posts')).json()) as { data: { id: string }[] }).data.map(
        (p) => p.id,
      )

    it('deletes the posts that api list posts --q finds, sending q with the confirmation', async () => {
      const run = await runCli(['delete', 'posts', '--q', 'tmp', '--confirm'], { env })
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout)).toEqual({ deleted: 2 })
      expect(run.requests[0]!.url.searchParams.get('q')).toBe('tmp')
      expect(await remainingPosts()).toEqual([keep])
    })

    it('counts the matches of --q in the question on a terminal', async () => {
      const run = await runCli(['delete', 'posts', '--q', 'tmp'], { env, tty: true, answer: true })
      expect(run.questions).toEqual(['Delete 2 posts matching the filters in /api/v2/posts?'])
      expect(JSON.parse(run.stdout)).toEqual({ deleted: 2 })
    })

    it('refuses --q for a collection without searchable fields, naming api list --help', async () => {
      const run = await runCli(['delete', 'orders', '--q', 'tmp', '--confirm'], { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('unknown filter --q for orders')
      expect(run.stderr).toContain('api list orders --help')
      expect(run.requests).toHaveLength(0)
    })
  })
})
