import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runOk, type ServeProcess, startServe } from './run.ts'

let dir: string
let db: string
let server: ServeProcess
let url: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-serve-'))
  db = join(dir, 'serve.db')
  // Port 0: the server picks a free port and prints its address.
  server = await startServe(['--port', '0', '--db', db])
  url = server.url
  for (let i = 0; i < 50; i++) {
    const ready = await fetch(`${url}/.well-known/jwks.json`).catch(() => null)
    if (ready?.status === 200) break
    await Bun.sleep(100)
  }
})
afterAll(() => {
  if (server.proc.exitCode === null) server.proc.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe('api-server serve', () => {
  it('listens on a loopback address and says what to do next on stderr, not stdout', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.stderr()).toContain('npm run -s api -- login')
    expect(server.stdout()).not.toContain('listening')
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

  it('exits 0 on SIGTERM, with no error on stderr', async () => {
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).not.toMatch(/error|warn/i)
    // Standard output is the JSON log, one object a line, and nothing else.
    const lines = server.stdout().trimEnd().split('\n')
    expect(lines.map((line) => typeof JSON.parse(line))).toEqual(lines.map(() => 'object'))
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ msg: 'stopped' })
    expect(await fetch(`${url}/.well-known/jwks.json`).catch(() => 'refused')).toBe('refused')
  })
})
