import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { ROOT, runOk } from './run.ts'

let dir: string
let db: string
let proc: Subprocess<'ignore', 'pipe', 'pipe'>
let url: string
let output = ''

/** Reads the server's stdout until it names the address it listens on. */
async function listeningUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    output += decoder.decode(value, { stream: true })
    const match = /listening on (http:\/\/\S+)/.exec(output)
    if (match) {
      // Keep draining stdout so that the server never blocks on a full pipe.
      void (async () => {
        for (;;) {
          const next = await reader.read()
          if (next.done) return
          output += decoder.decode(next.value, { stream: true })
        }
      })()
      return match[1]!
    }
  }
  throw new Error(`api-server serve did not start: ${output}`)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-serve-'))
  db = join(dir, 'serve.db')
  // Port 0: the server picks a free port and prints its address.
  proc = Bun.spawn([process.execPath, 'server/main.ts', 'serve', '--port', '0', '--db', db], {
    cwd: ROOT,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  url = await listeningUrl(proc.stdout)
  for (let i = 0; i < 50; i++) {
    const ready = await fetch(`${url}/.well-known/jwks.json`).catch(() => null)
    if (ready?.status === 200) break
    await Bun.sleep(100)
  }
})
afterAll(() => {
  if (proc.exitCode === null) proc.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe('api-server serve', () => {
  it('listens on a loopback address and says what to do next', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(output).toContain('npm run -s api -- login')
  })

  it('issues a token to a client created with the admin CLI while it runs', async () => {
    await runOk(['org', 'create', '--name', 'Live'], db)
    const { client_id, client_secret } = JSON.parse(
      await runOk(
        ['client', 'create', '--name', 'svc', '--org', 'Live', '--scope', 'read:orders', '--json'],
        db,
      ),
    )
    const response = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${client_id}:${client_secret}`)}`,
      },
      body: 'grant_type=client_credentials',
    })
    expect(response.status).toBe(200)
    const { access_token, scope } = (await response.json()) as { access_token: string; scope: string }
    expect(scope).toBe('read:orders')
    const orders = await fetch(`${url}/api/v1/orders`, {
      headers: { Authorization: `Bearer ${access_token}` },
    })
    expect(orders.status).toBe(200)
  })

  it('can be backed up while it serves', async () => {
    const target = join(dir, 'live-backup.db')
    expect(JSON.parse(await runOk(['backup', target, '--json'], db))).toEqual({ file: target })
  })

  it('exits 0 on SIGTERM', async () => {
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    expect(await new Response(proc.stderr).text()).toBe('')
    expect(await fetch(`${url}/.well-known/jwks.json`).catch(() => 'refused')).toBe('refused')
  })
})
