import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ROOT, runOk } from '../admin/run.ts'
import { clientToken } from '../support/tokens.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const dir = mkdtempSync(join(tmpdir(), 'api-webhooks-'))
const db = join(dir, 'api.db')
const procs: Bun.Subprocess[] = []
let receiver: Receiver | undefined

afterAll(() => {
  for (const proc of procs) if (proc.exitCode === null) proc.kill('SIGKILL')
  receiver?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** `api-server serve` on the shared file, with a short lease so that a takeover comes soon. */
async function startServer(): Promise<string> {
  const proc = Bun.spawn(
    [process.execPath, 'server/main.ts', 'serve', '--port', '0', '--db', db, '--allow-http-webhooks'],
    {
      cwd: ROOT,
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        ...process.env,
        API_DB: undefined,
        API_WEBHOOK_TIMINGS: JSON.stringify({ leaseMs: 1_500, attemptTimeoutMs: 1_000, pollMs: 100 }),
      },
    },
  )
  procs.push(proc)
  const reader = proc.stderr.getReader()
  let text = ''
  const deadline = Date.now() + 20_000
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1]
    if (url) {
      reader.releaseLock()
      return url
    }
    if (Date.now() > deadline) throw new Error(`the server did not start: ${text}`)
    const { value, done } = await reader.read()
    if (done) throw new Error(`the server exited: ${text}`)
    text += new TextDecoder().decode(value)
  }
}

test('a delivery in flight when the server is killed -9 is made by the restarted server', async () => {
  // The first attempt never answers: the server holding it dies mid-attempt.
  let calls = 0
  receiver = startReceiver(async () => {
    calls += 1
    if (calls === 1) await new Promise(() => {})
    return new Response(null, { status: 200 })
  })
  const first = await startServer()
  const org = JSON.parse(await runOk(['org', 'create', '--name', 'Crash', '--json'], db)).id
  const client = JSON.parse(await runOk(['client', 'create', '--name', 'c', '--org', org, '--json'], db))
  const tokenFrom = (url: string) => clientToken(url, { id: client.client_id, secret: client.client_secret })
  let token = await tokenFrom(first)
  const call = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  const created = await call(first, '/api/v2/webhook-endpoints', { url: receiver.url })
  expect(created.status).toBe(201)
  const endpoint = (await created.json()) as { id: string; secret: string }
  expect(
    (await call(first, '/api/v1/products', { name: 'Lamp', sku: 'L-1', price: 100, currency: 'EUR' })).status,
  ).toBe(201)
  await receiver.waitFor(1)
  procs[0]!.kill('SIGKILL')
  await procs[0]!.exited

  const second = await startServer()
  token = await tokenFrom(second)
  const [lost, resent] = await receiver.waitFor(2, 15_000)
  expect(resent!.headers['webhook-id']).toBe(lost!.headers['webhook-id'])
  const event = new Webhook(endpoint.secret).verify(resent!.body, resent!.headers) as { type: string }
  expect(event.type).toBe('product.created')
  const deadline = Date.now() + 10_000
  for (;;) {
    const response = await fetch(`${second}/api/v2/webhook-endpoints/${endpoint.id}/deliveries`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    const [row] = ((await response.json()) as { data: { status: string; attempts: number }[] }).data
    if (row?.status === 'succeeded') {
      // The attempt cut short by the kill was never recorded; the one that answered was.
      expect(row.attempts).toBe(1)
      break
    }
    if (Date.now() > deadline) throw new Error(`not delivered: ${JSON.stringify(row)}`)
    await Bun.sleep(100)
  }
}, 60_000)

describe('API_WEBHOOK_TIMINGS', () => {
  test('refuses an attempt timeout as long as the lease, with exit 2 and the reason', async () => {
    const proc = Bun.spawn([process.execPath, 'server/main.ts', 'serve', '--port', '0', '--db', db], {
      cwd: ROOT,
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        ...process.env,
        API_DB: undefined,
        API_WEBHOOK_TIMINGS: JSON.stringify({ leaseMs: 1_500, attemptTimeoutMs: 1_500 }),
      },
    })
    expect(await proc.exited).toBe(2)
    expect(await new Response(proc.stderr).text()).toContain(
      'attemptTimeoutMs (1500) must be shorter than leaseMs (1500)',
    )
  })
})
