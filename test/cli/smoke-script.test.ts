/**
 * The CI smoke script of docs/cli.md (and README.md), run as written with bash against a real
 * server, so the documented snippet never rots.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  BUN,
  CLI,
  expectNoSecrets,
  JQ,
  jqAvailable,
  ROOT,
  removeTempDirs,
  secret,
  storedFile,
  tempDir,
} from './harness.ts'

if (!jqAvailable) console.warn(`skipped: the smoke script needs jq (${JQ} is missing)`)

/** The first ```bash block after the given heading. */
function scriptUnder(markdown: string, heading: string): string {
  const start = markdown.indexOf(heading)
  if (start < 0) throw new Error(`no "${heading}" section`)
  const block = /```bash\n([\s\S]*?)```/.exec(markdown.slice(start))
  if (!block) throw new Error(`no bash block under "${heading}"`)
  return block[1]!
}

const script = scriptUnder(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8'), '## CI smoke script')

let server: TestServer
let acme: Tenant
let bin: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  secret(acme.token, acme.clientSecret)
  // `api` and `jq` on the PATH, as on a CI runner.
  bin = tempDir()
  writeFileSync(join(bin, 'api'), `#!/bin/sh\nexec "${BUN}" "${CLI}" "$@"\n`)
  chmodSync(join(bin, 'api'), 0o755)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

async function runScript(env: Record<string, string>) {
  const home = tempDir()
  const child = Bun.spawn(['bash', '-c', script], {
    cwd: home,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  expectNoSecrets(stdout + stderr, env)
  return { code, stdout, stderr, configHome: join(home, '.config') }
}

describe('the CI smoke script of docs/cli.md', () => {
  it('is the same in README.md', () => {
    expect(scriptUnder(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## The command-line client')).toBe(
      script,
    )
  })

  it.skipIf(!jqAvailable)(
    'passes against a running server and leaves no login behind',
    async () => {
      const run = await runScript({
        API_URL: server.url,
        API_CLIENT_ID: acme.clientId,
        API_CLIENT_SECRET: acme.clientSecret,
        CI_PIPELINE_ID: `t${Date.now()}`,
      })
      expect(run.stderr).toContain('Logged out of')
      expect(run.code).toBe(0)
      const users = (await (await acme.fetch('/api/v1/users?q=smoke')).json()) as { data: { name: string }[] }
      expect(users.data.map((u) => u.name)).toEqual(['CI smoke'])
      const orders = (await (await acme.fetch('/api/v1/orders')).json()) as { data: unknown[] }
      expect(orders.data).toEqual([])
      expect(storedFile(run.configHome)).toBeNull()
    },
    30_000,
  )

  const failures: { name: string; env: () => Record<string, string>; status: number }[] = [
    {
      name: 'the server cannot be reached',
      env: () => ({
        API_URL: 'http://127.0.0.1:9',
        API_CLIENT_ID: acme.clientId,
        API_CLIENT_SECRET: acme.clientSecret,
      }),
      status: 3,
    },
    {
      name: 'the credentials are refused',
      env: () => ({
        API_URL: server.url,
        API_CLIENT_ID: acme.clientId,
        API_CLIENT_SECRET: 'cs_wrong-secret-value',
      }),
      status: 4,
    },
    { name: 'the credentials are missing', env: () => ({ API_URL: server.url }), status: 2 },
  ]
  for (const { name, env, status } of failures) {
    it.skipIf(!jqAvailable)(
      `fails the job with status ${status} when ${name}`,
      async () => {
        const run = await runScript(env())
        expect(run.code).toBe(status)
      },
      30_000,
    )
  }
})
