import { afterAll, beforeAll, expect, it } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startTestServer } from '../support/server.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { type Env, loggedInEnv, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli } from './harness.ts'

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
  expect(run.code).toBe(0)
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
