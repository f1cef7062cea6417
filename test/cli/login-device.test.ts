/**
 * `api login`: the device flow (RFC 8628) against the real server, approved in a real headless
 * Chromium on the server's own pages. Needs the server's /oauth/device_authorization and /device
 * page, and /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { createUser } from '../../server/admin/users.ts'
import { startTestServer } from '../support/server.ts'
import { answerInBrowser, chromiumAvailable, launchBrowser, type Person } from './browser.ts'
import type { Env } from './fixtures.ts'
import {
  BUN,
  CLI,
  expectNoSecrets,
  ROOT,
  removeTempDirs,
  runCli,
  secret,
  spawnCli,
  storedFile,
  tempDir,
} from './harness.ts'

const server = await startTestServer()
const deviceFlowAvailable =
  (
    await server.fetch('/oauth/device_authorization', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'client_id=api-cli',
    })
  ).status === 200
if (!deviceFlowAvailable) console.warn('skipped: the server has no /oauth/device_authorization yet')
if (!chromiumAvailable) console.warn('skipped: /usr/bin/chromium is missing')

let browser: Browser
let person: Person & { id: string; orgId: string; name: string }

beforeAll(async () => {
  if (!deviceFlowAvailable || !chromiumAvailable) return
  browser = await launchBrowser()
  const { orgId } = await server.tenant()
  const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`
  const password = 'correct horse battery'
  secret(password)
  const user = await createUser(server.store, {
    org: orgId,
    email,
    name: 'Grace Hopper',
    role: 'admin',
    password,
  })
  person = { email, password, id: user.id, orgId, name: 'Grace Hopper' }
})
afterAll(async () => {
  await browser?.close()
  await server.stop()
  removeTempDirs()
})

/** Makes the server believe `ms` passed since the last poll of every device code. */
async function elapse(ms: number): Promise<void> {
  await server.sql.run(
    'UPDATE oauth_device_codes SET last_polled_at = ? WHERE last_polled_at IS NOT NULL',
    new Date(Date.now() - ms).toISOString(),
  )
}

/**
 * Runs `api login` in-process. Each wait of the CLI passes on the server as requested, except that
 * `shortWait` (1-based) passes only 1 s, as if the CLI polled too early; the person answers in the
 * browser during wait `answerAt` (or, on a terminal, when the CLI opens the browser).
 */
async function deviceLogin(options: {
  tty?: boolean
  shortWait?: number
  answerAt?: number
  decision?: 'allow' | 'deny'
}) {
  const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  let userCode = ''
  const polls: string[] = []
  let waits = 0
  const run = await runCli(['login'], {
    env,
    tty: options.tty ?? false,
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      const path = new URL(String(input)).pathname
      if (path === '/oauth/device_authorization')
        userCode = ((await response.clone().json()) as { user_code: string }).user_code
      if (path === '/oauth/token')
        polls.push(response.ok ? 'tokens' : ((await response.clone().json()) as { error: string }).error)
      return response
    },
    sleep: async (ms) => {
      waits += 1
      // Fail fast instead of polling until the code expires when the approval never lands.
      if (waits > 6) throw new Error('still not approved after 6 polls')
      await elapse(waits === options.shortWait ? 1000 : ms)
      if (waits === options.answerAt)
        await answerInBrowser(browser, `${server.url}/device`, person, {
          userCode,
          decision: options.decision,
        })
    },
    openBrowser: async (url) => {
      const page = await answerInBrowser(browser, url, person, { decision: options.decision })
      return page.text.includes('Device connected')
    },
  })
  return { ...run, env, polls, userCode }
}

describe.skipIf(!deviceFlowAvailable || !chromiumAvailable)('api login (device flow)', () => {
  it('prints the code and address on stderr, opens nothing, and logs in once approved in a browser', async () => {
    const env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
    const child = Bun.spawn([BUN, CLI, 'login'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader()
    let stderr = ''
    while (!stderr.includes('Waiting for approval')) {
      const { value, done } = await reader.read()
      if (done) break
      stderr += value
    }
    const shown = /To log in, open (\S+) and enter the code ([A-Z]{4}-[A-Z]{4})\n/.exec(stderr)
    expect(shown).not.toBeNull()
    const [, address, code] = shown!
    expect(address).toBe(`${server.url}/device`)
    expect(stderr).toContain(`(or open ${server.url}/device?user_code=${code})`)
    expect(stderr).not.toContain('Opened your browser')

    const page = await answerInBrowser(browser, address!, person, { userCode: code })
    expect(page.text).toContain('Device connected')
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      stderr += value
    }
    expect(await child.exited).toBe(0)
    const stdout = await new Response(child.stdout).text()
    expectNoSecrets(stdout + stderr, env)
    expect(stdout).toBe('')
    expect(stderr).toContain(`Logged in to ${server.url} (scopes: `)

    const file = join(env.XDG_CONFIG_HOME, 'api', 'credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const login = storedFile(env.XDG_CONFIG_HOME)!.servers[server.url]!
    expect(login).toMatchObject({ kind: 'device', clientId: 'api-cli' })
    expect(login.refreshToken).toBeString()

    const whoami = await spawnCli(['whoami'], env)
    expect(whoami.code).toBe(0)
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      kind: 'user',
      subject: person.id,
      organization: person.orgId,
      client: 'api-cli',
      name: person.name,
      email: person.email,
      role: 'admin',
    })
  }, 60_000)

  it('polls at the server interval and waits 5 s longer after each slow_down (RFC 8628 §3.5)', async () => {
    const run = await deviceLogin({ shortWait: 2, answerAt: 3 })
    expect(run.code).toBe(0)
    expect(run.polls).toEqual(['authorization_pending', 'slow_down', 'tokens'])
    expect(run.sleeps).toEqual([5000, 5000, 10_000])
    expect(run.opened).toEqual([])
  }, 30_000)

  it('opens the complete link in the browser on an interactive terminal', async () => {
    const run = await deviceLogin({ tty: true })
    expect(run.opened).toEqual([`${server.url}/device?user_code=${run.userCode}`])
    expect(run.stderr).toContain('Opened your browser.')
    expect(run.code).toBe(0)
    expect(run.polls).toEqual(['tokens'])
  }, 30_000)

  it('exits 4 when the person denies access in the browser, storing nothing', async () => {
    const run = await deviceLogin({ answerAt: 1, decision: 'deny' })
    expect(run.code).toBe(4)
    expect(run.stderr).toContain('the login was denied in the browser')
    expect(storedFile(run.env.XDG_CONFIG_HOME!)).toBeNull()
  }, 30_000)

  it('renews a user token with the refresh token before it expires, rotating the refresh token', async () => {
    const login = await deviceLogin({ answerAt: 1 })
    expect(login.code).toBe(0)
    const before = storedFile(login.env.XDG_CONFIG_HOME!)!.servers[server.url]!
    const later = Date.now() + 2 * 3600_000
    const run = await runCli(['list', 'orders'], { env: login.env, now: () => later })
    expect(run.code).toBe(0)
    expect(run.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /oauth/token',
      'GET /api/v2/orders',
    ])
    expect(new URLSearchParams(run.requests[0]!.body).get('grant_type')).toBe('refresh_token')
    const after = storedFile(login.env.XDG_CONFIG_HOME!)!.servers[server.url]!
    expect(after.refreshToken).not.toBe(before.refreshToken)
    expect(after.expiresAt).toBe(later + 3600_000)
    const replay = await server.fetch('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(before.refreshToken),
        client_id: 'api-cli',
      }),
    })
    expect(replay.status).toBe(400)
  }, 30_000)

  it('api logout revokes the refresh token on the server', async () => {
    const login = await deviceLogin({ answerAt: 1 })
    const stored = storedFile(login.env.XDG_CONFIG_HOME!)!.servers[server.url]!
    const run = await runCli(['logout'], { env: login.env })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe(`Logged out of ${server.url}.\n`)
    const reuse = await server.fetch('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(stored.refreshToken),
        client_id: 'api-cli',
      }),
    })
    expect(reuse.status).toBe(400)
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant')
  }, 30_000)
})
