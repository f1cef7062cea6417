/**
 * Webhooks through the executables of `npm run build`, as docs/webhooks.md has a newcomer use
 * them: the endpoint registered with the compiled `api`, writes made with it, the compiled
 * `api-server` killed -9 while they are acknowledged and started again on the same database, and
 * a real receiver that verifies every delivery with the `standardwebhooks` package.
 */
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { type ServeProcess, startServe } from '../admin/run.ts'
import { buildExecutables, execCompiled } from '../support/compiled.ts'
import { type Receiver, startReceiver } from './receiver.ts'

let dir: string
let bin: string
let db: string
let receiver: Receiver | undefined
const servers: ServeProcess[] = []

beforeAll(() => {
  ;({ dir, bin } = buildExecutables('api-webhooks-compiled-'))
  db = join(dir, 'api.db')
}, 120_000)
afterAll(async () => {
  for (const server of servers) if (server.proc.exitCode === null) server.proc.kill('SIGKILL')
  receiver?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs a compiled executable in the test's directory, its configuration there too. */
const exec = (argv: string[], env: Record<string, string> = {}) =>
  execCompiled(argv, dir, { XDG_CONFIG_HOME: join(dir, 'config'), ...env })

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = server
  server.stop(true)
  return port
}

it('delivers every acknowledged event, signed, across a kill -9 of the compiled server', async () => {
  // Each answer takes a moment, so that deliveries are in flight when the server dies.
  receiver = startReceiver(async () => {
    await Bun.sleep(200)
    return new Response(null, { status: 204 })
  })
  const admin = async (...args: string[]) => {
    const run = await exec([join(bin, 'api-server'), '--db', db, '--json', ...args])
    expect(run.status).toBe(0)
    return JSON.parse(run.stdout)
  }
  const org = (await admin('org', 'create', '--name', 'Acme')).id as string
  const client = await admin('client', 'create', '--name', 'hooks', '--org', org)
  const port = await freePort()
  // A short lease: the restarted server takes over what the killed one held within seconds.
  const serve = async () => {
    const server = await startServe(['--port', String(port), '--db', db, '--allow-http-webhooks'], {
      command: [join(bin, 'api-server')],
      cwd: dir,
      env: { API_WEBHOOK_TIMINGS: JSON.stringify({ leaseMs: 1_500, attemptTimeoutMs: 1_000, pollMs: 100 }) },
    })
    servers.push(server)
    return server
  }
  const first = await serve()
  const env = {
    API_URL: first.url,
    API_CLIENT_ID: client.client_id as string,
    API_CLIENT_SECRET: client.client_secret as string,
  }
  const api = (...args: string[]) => exec([join(bin, 'api'), ...args], env)
  expect((await api('login', '--client-credentials')).status).toBe(0)

  // As docs/webhooks.md registers one, with the receiver's URL.
  const created = await api(
    'create',
    'webhook-endpoints',
    `url=${receiver.url}`,
    'eventTypes:=["product.created"]',
    'description=The compiled test',
  )
  expect(created.status).toBe(0)
  const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[] }
  expect(endpoint.secret).toStartWith('whsec_')
  expect(endpoint.eventTypes).toEqual(['product.created'])

  // Two writers; the server is killed after some of their writes and started again on the same
  // file and port while they go on (the CLI retries a create, under its Idempotency-Key).
  const acknowledged: string[] = []
  let afterRestart = 0
  let restarted = false
  const writer = async (w: number) => {
    for (let i = 0; i < 12; i++) {
      const price = JSON.stringify({ value: 100 + i, currency: 'EUR' })
      const run = await api('create', 'products', `name=P${w}-${i}`, `sku=S-${w}-${i}`, `price:=${price}`)
      if (run.status !== 0) continue
      acknowledged.push((JSON.parse(run.stdout) as { id: string }).id)
      if (restarted) afterRestart += 1
    }
  }
  const writers = Promise.all([writer(0), writer(1)])
  // Killed with writes acknowledged and a delivery in flight: the receiver has not answered it yet.
  let cut: string | undefined
  const waitUntil = Date.now() + 20_000
  while (acknowledged.length < 6 || cut === undefined) {
    if (Date.now() > waitUntil) throw new Error('no delivery was ever in flight with 6 writes acknowledged')
    await Bun.sleep(5)
    cut = receiver.received.find((r) => r.endedAt === null)?.headers['webhook-id']
  }
  first.proc.kill('SIGKILL')
  await first.proc.exited
  const beforeKill = acknowledged.length
  await serve()
  restarted = true
  await writers
  expect(beforeKill).toBeGreaterThanOrEqual(6)
  expect(afterRestart).toBeGreaterThan(0)

  // Every product.created in the log (a superset of the acknowledged) reaches the receiver.
  const listed = await api('list', 'events', '--type', 'product.created', '--all')
  expect(listed.status).toBe(0)
  const events = JSON.parse(listed.stdout) as { id: string; resourceId: string }[]
  const eventOf = new Map(events.map((e) => [e.resourceId, e.id]))
  for (const id of acknowledged) expect(eventOf.has(id)).toBe(true)
  const wanted = new Set(events.map((e) => e.id))
  const deadline = Date.now() + 30_000
  const delivered = () => new Set(receiver!.received.map((r) => r.headers['webhook-id']))
  // The attempt the kill cut short arrived once already; it is made again once its lease ends,
  // which may be after every other event has arrived.
  const cutAttempts = () => receiver!.received.filter((r) => r.headers['webhook-id'] === cut).length
  while ([...wanted].some((id) => !delivered().has(id)) || cutAttempts() < 2) {
    if (Date.now() > deadline)
      throw new Error(
        `not delivered: ${[...wanted].filter((id) => !delivered().has(id)).join(', ')}; the cut attempt made ${cutAttempts()} times`,
      )
    await Bun.sleep(50)
  }

  // Each request, duplicates included, is signed with the endpoint's secret and carries its event.
  const webhook = new Webhook(endpoint.secret)
  for (const request of receiver.received) {
    const event = webhook.verify(request.body, request.headers) as {
      id: string
      type: string
      data: { id: string }
    }
    expect(event.id).toBe(request.headers['webhook-id']!)
    expect(event.type).toBe('product.created')
    expect(eventOf.get(event.data.id)).toBe(event.id)
  }
  expect(delivered()).toEqual(wanted)
  // The attempt the kill cut short was made again, by the restarted server once its lease ended.
  expect(cutAttempts()).toBeGreaterThanOrEqual(2)
}, 90_000)
