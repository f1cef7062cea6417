import { afterAll, beforeAll, expect, it } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startTestServer } from '../support/server.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { type Env, loggedInEnv, seedUser } from './fixtures.ts'
import { BUN, CLI, ROOT, removeTempDirs, runCli, spawnCli } from './harness.ts'

const server = await startTestServer()
const acme = await server.tenant()
const receiver = startReceiver()
let env: Env
let userId: string

beforeAll(async () => {
  env = await loggedInEnv(server, acme)
  userId = await seedUser(acme)
})
afterAll(async () => {
  receiver.stop()
  removeTempDirs()
  await server.stop()
})

it('api webhooks listen forwards each event to the local URL, signed with the secret it prints', async () => {
  let interrupt = () => {}
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve
  })
  const run = await runCli(
    ['webhooks', 'listen', '--forward-to', receiver.url, '--events', 'order.created'],
    {
      env,
      interrupted,
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        void (async () => {
          for (const amount of [7001, 7002])
            await acme.fetch('/api/v1/orders', { method: 'POST', json: { userId, amount, currency: 'EUR' } })
          await receiver.waitFor(2)
          await Bun.sleep(50)
          interrupt()
        })()
        return response
      },
    },
  )
  // Ctrl-C, as runCli's `interrupted` stands for it, is the only way it ends as asked.
  expect(run.code).toBe(130)
  const secret = /Signing secret: (whsec_\S+)/.exec(run.stderr)?.[1]
  expect(secret).toBeDefined()
  const events = receiver.received.map(
    (d) =>
      new Webhook(secret!).verify(d.body, d.headers) as {
        id: string
        type: string
        data: { amount: number }
      },
  )
  expect(events.map((e) => e.type)).toEqual(['order.created', 'order.created'])
  expect(events.map((e) => e.data.amount)).toEqual([7001, 7002])
  expect(receiver.received[0]!.headers['webhook-id']).toBe(events[0]!.id)
  expect(run.stdout).toContain(`order.created ${events[0]!.id} -> 204`)
})

it('api webhooks listen without --forward-to is a usage error', async () => {
  const run = await runCli(['webhooks', 'listen'], { env })
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('--forward-to')
})

it('a secret given that is not whsec_ and base64 is a usage error naming where it came from', async () => {
  const flag = await runCli(['webhooks', 'listen', '--forward-to', receiver.url, '--secret', 'hunter2'], {
    env,
  })
  expect(flag.code).toBe(2)
  expect(flag.stderr).toContain('--secret must be whsec_ and base64')
  const variable = await runCli(['webhooks', 'listen', '--forward-to', receiver.url], {
    env: { ...env, API_WEBHOOK_SECRET: 'hunter2' },
  })
  expect(variable.code).toBe(2)
  expect(variable.stderr).toContain('API_WEBHOOK_SECRET must be whsec_ and base64')
  expect(variable.stderr).not.toContain('hunter2')
})

it('forwards as a process, signed with the secret of API_WEBHOOK_SECRET (not printed), and exits 130 at Ctrl-C', async () => {
  const own = startReceiver()
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
  const child = Bun.spawn(
    [BUN, CLI, 'webhooks', 'listen', '--forward-to', own.url, '--events', 'order.created'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME, ...env, API_WEBHOOK_SECRET: secret },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  try {
    // The subscription is open once the CLI says where it forwards.
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader()
    let said = ''
    while (!said.includes('Press Ctrl-C to stop.')) {
      const { value, done } = await stderr.read()
      if (done) throw new Error(`api webhooks listen stopped: ${said}`)
      said += value
    }
    expect(said).toContain('Signing with the secret of API_WEBHOOK_SECRET')
    expect(said).not.toContain(secret.slice('whsec_'.length))
    await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'X-Request-Id': 'listen-order-7003' },
      json: { userId, amount: 7003, currency: 'EUR' },
    })
    await own.waitFor(1)
    await Bun.sleep(100)
    child.kill('SIGINT')
    expect(await child.exited).toBe(130)
    const event = new Webhook(secret).verify(own.received[0]!.body, own.received[0]!.headers) as {
      id: string
      type: string
      data: { amount: number }
    }
    expect(event.type).toBe('order.created')
    expect(event.data.amount).toBe(7003)
    // The body a server's delivery has: who made the change, and in which request.
    expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'actor', 'requestId', 'data'])
    expect(event).toMatchObject({
      actor: { type: 'client', id: acme.clientId },
      requestId: 'listen-order-7003',
    })
    expect(await new Response(child.stdout).text()).toContain(`order.created ${event.id} -> 204`)
  } finally {
    child.kill()
    own.stop()
  }
})

it('exits 1 with a message when the server ends the stream (a script can start it again)', async () => {
  const stub = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response('', { headers: { 'Content-Type': 'text/event-stream' } }),
  })
  try {
    const run = await spawnCli(['webhooks', 'listen', '--forward-to', receiver.url], {
      ...env,
      API_URL: stub.url.origin,
      API_TOKEN: 'listen-token-0123456789',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toEndWith('api: the server ended the subscription\n')
  } finally {
    stub.stop(true)
  }
})
