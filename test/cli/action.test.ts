import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { created, type Env, loggedInEnv, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, spawnCli } from './harness.ts'

let server: TestServer
let tenant: Tenant
let env: Env
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  userId = await seedUser(tenant)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

async function order(status = 'pending'): Promise<string> {
  const json = { userId, amount: 1200, currency: 'EUR', status }
  return (await created(await tenant.fetch('/api/v1/orders', { method: 'POST', json }))).id as string
}

describe('api action COLLECTION ID ACTION', () => {
  it('cancels an order (as a subprocess), printing the changed record as JSON when piped', async () => {
    const id = await order()
    const run = await spawnCli(['action', 'orders', id, 'cancel'], env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const record = JSON.parse(run.stdout)
    expect(record).toMatchObject({ id, status: 'cancelled' })
    const events = (await (await tenant.fetch(`/api/v2/events?resource_id=${id}`)).json()) as {
      data: { type: string }[]
    }
    expect(events.data.map((e) => e.type)).toContain('order.cancelled')
  })

  it('exits 1 with the server 409 naming the current state when the state does not allow it', async () => {
    const id = await order()
    const run = await spawnCli(['action', 'orders', id, 'deliver'], env)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('CONFLICT (409)')
    expect(run.stderr).toContain('status: is pending; deliver needs shipped')
  })

  it('sends POST {} with a fresh Idempotency-Key, or the given one, and --if-match', async () => {
    const id = await order('paid')
    const first = await runCli(['action', 'orders', id, 'ship', '--idempotency-key', 'ship-once'], { env })
    expect(first.code).toBe(0)
    const again = await runCli(['action', 'orders', id, 'ship', '--idempotency-key', 'ship-once'], { env })
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout))
    const sent = first.requests.at(-1)!
    expect(sent.method).toBe('POST')
    expect(sent.url.pathname).toEndWith(`/orders/${id}/ship`)
    expect(sent.body).toBe('{}')
    expect(sent.headers.get('idempotency-key')).toBe('ship-once')
    const other = await order('shipped')
    const fresh = await runCli(['action', 'orders', other, 'deliver', '--if-match', '"stale"'], { env })
    expect(fresh.code).toBe(1)
    expect(fresh.stderr).toContain('PRECONDITION_FAILED (412)')
    expect(fresh.requests.at(-1)!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('exits 2 for an action the collection does not declare, suggesting the closest, without a request', async () => {
    const id = await order()
    const typo = await runCli(['action', 'orders', id, 'cancle'], { env })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain(
      'orders has no action "cancle" (did you mean cancel?); its actions: cancel, ship, deliver',
    )
    expect(typo.requests).toEqual([])
    const none = await runCli(['action', 'products', 'prd_x', 'cancel'], { env })
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('products has no actions')
    expect((await runCli(['action', 'orders', id], { env })).code).toBe(2)
  })

  it('publishes a post', async () => {
    const post = await created(
      await tenant.fetch('/api/v1/posts', { method: 'POST', json: { authorId: userId, title: 'Hi' } }),
    )
    const run = await runCli(['action', 'posts', post.id as string, 'publish'], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).published).toBe(true)
  })
})
