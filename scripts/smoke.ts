/**
 * Smoke-runs a compiled `api-server` from an empty directory: migrate, create an organization and
 * a client, serve on a free port, one authenticated request, then a clean SIGTERM shutdown.
 * Usage: bun scripts/smoke.ts dist/api-server
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { smokePort } from './smoke-support.ts'

const binary = resolve(process.argv[2] ?? 'dist/api-server')
const dir = mkdtempSync(join(tmpdir(), 'api-smoke-'))
copyFileSync(binary, join(dir, 'api-server'))
const run = (...args: string[]) => {
  const result = Bun.spawnSync([join(dir, 'api-server'), ...args], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
  })
  if (result.exitCode !== 0)
    throw new Error(`api-server ${args.join(' ')} failed: ${result.stderr.toString()}`)
  return result.stdout.toString()
}
const step = (message: string) => console.log(`smoke: ${message}`)

try {
  step(`migrate -> ${run('migrate', '--json').trim()}`)
  const org = JSON.parse(run('org', 'create', '--name', 'Smoke', '--json')) as { id: string }
  const client = JSON.parse(run('client', 'create', '--name', 'smoke', '--org', org.id, '--json')) as {
    client_id: string
    client_secret: string
  }
  const port = smokePort()
  const server = Bun.spawn([join(dir, 'api-server'), 'serve', '--port', String(port)], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (
      await fetch(`${url}/.well-known/jwks.json`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    if (i > 100) throw new Error('the server did not start')
    await Bun.sleep(100)
  }
  step(`serving on ${url}`)
  const tokenResponse = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: 'grant_type=client_credentials&scope=read:orders',
  })
  const { access_token } = (await tokenResponse.json()) as { access_token: string }
  const list = await fetch(`${url}/api/v1/orders`, { headers: { Authorization: `Bearer ${access_token}` } })
  if (list.status !== 200) throw new Error(`GET /api/v1/orders answered ${list.status}`)
  step(`GET /api/v1/orders -> ${list.status} ${JSON.stringify(await list.json())}`)
  server.kill('SIGTERM')
  const code = await server.exited
  if (code !== 0) throw new Error(`api-server exited ${code} after SIGTERM`)
  step('SIGTERM -> exit 0')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
