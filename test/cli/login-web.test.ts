/**
 * `api login --web`: authorization code with PKCE through a loopback redirect (RFC 7636, RFC 8252
 * §7.3), against the real server's pages in a real headless Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Browser } from 'playwright-core'
import { newTotpSecret } from '../../server/account/totp.ts'
import { createUser } from '../../server/admin/users.ts'
import { totpCode, userEvents } from '../signin/support.ts'
import { startTestServer } from '../support/server.ts'
import { answerInBrowser, chromiumAvailable, launchBrowser, type Person } from './browser.ts'
import type { Env } from './fixtures.ts'
import { type CliResult, removeTempDirs, runCli, secret, storedFile, tempDir } from './harness.ts'

const server = await startTestServer()
const webFlowAvailable = (await server.fetch('/oauth/authorize?client_id=api-cli')).status !== 404
if (!webFlowAvailable) console.warn('skipped: the server has no /oauth/authorize yet')
if (!chromiumAvailable) console.warn('skipped: /usr/bin/chromium is missing')

let browser: Browser
let person: Person & { id: string }

beforeAll(async () => {
  if (!webFlowAvailable || !chromiumAvailable) return
  browser = await launchBrowser()
  const { orgId } = await server.tenant()
  const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`
  const password = 'analytical engine 1843'
  secret(password)
  const { id } = await createUser(server.store, {
    org: orgId,
    email,
    name: 'Ada Lovelace',
    role: 'member',
    password,
  })
  person = { email, password, id }
})
afterAll(async () => {
  await browser?.close()
  await server.stop()
  removeTempDirs()
})

const never = new Promise<void>(() => {})
const printedUrl = (stderr: string) =>
  /Open this address in a browser to log in:\n\n {2}(\S+)\n/.exec(stderr)?.[1]

/**
 * Runs `api login --web` in-process; `act` plays the person once the CLI waits for the browser,
 * given the authorization URL (printed, or handed to the browser opener on a terminal).
 */
async function webLogin(
  options: { tty?: boolean; extra?: string[] },
  act: (url: string, run: CliResult) => Promise<void>,
) {
  const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  let opened: string | undefined
  let acting: Promise<void> | undefined
  const run = await runCli(['login', '--web', ...(options.extra ?? [])], {
    env,
    tty: options.tty ?? false,
    openBrowser: async (url) => {
      opened = url
      return true
    },
    sleep: async (ms, sofar) => {
      // The only wait of --web is the 5-minute limit, raced against the browser's answer.
      expect(ms).toBe(5 * 60_000)
      acting = act(opened ?? printedUrl(sofar.stderr)!, sofar)
      return never
    },
  })
  // The CLI may finish before the browser has shown the last page.
  await acting
  return { ...run, env }
}

describe.skipIf(!webFlowAvailable || !chromiumAvailable)('api login --web', () => {
  it('prints an authorization URL with PKCE (S256) and a loopback redirect when no browser opens, then logs in', async () => {
    let authorize: URL | undefined
    let landing = ''
    const run = await webLogin({}, async (url) => {
      authorize = new URL(url)
      landing = (await answerInBrowser(browser, url, person)).text
    })
    expect(run.opened).toEqual([])
    expect(authorize!.origin + authorize!.pathname).toBe(`${server.url}/oauth/authorize`)
    const params = authorize!.searchParams
    expect(params.get('response_type')).toBe('code')
    expect(params.get('client_id')).toBe('api-cli')
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(params.get('state')).toBeTruthy()
    const redirect = new URL(params.get('redirect_uri')!)
    expect(redirect.hostname).toBe('127.0.0.1')
    expect(redirect.pathname).toBe('/callback')
    expect(Number(redirect.port)).toBeGreaterThan(1023)
    expect(landing).toContain('You are logged in')

    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain(`Logged in to ${server.url}`)
    const token = run.requests.find((r) => r.url.pathname === '/oauth/token')!
    const form = new URLSearchParams(token.body)
    expect(form.get('grant_type')).toBe('authorization_code')
    expect(form.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,128}$/)
    expect(form.get('redirect_uri')).toBe(redirect.toString())
    expect(storedFile(run.env.XDG_CONFIG_HOME!)!.servers[server.url]).toMatchObject({
      kind: 'web',
      clientId: 'api-cli',
    })

    const whoami = await runCli(['whoami'], { env: run.env })
    expect(JSON.parse(whoami.stdout)).toMatchObject({ kind: 'user', subject: person.id, email: person.email })
  }, 30_000)

  it('opens the browser on an interactive terminal instead of printing the URL', async () => {
    const run = await webLogin({ tty: true }, async (url) => {
      await answerInBrowser(browser, url, person)
    })
    expect(run.opened).toHaveLength(1)
    expect(run.stderr).toContain('Opened your browser to log in.')
    expect(printedUrl(run.stderr)).toBeUndefined()
    expect(run.code).toBe(0)
  }, 30_000)

  it('ignores an answer that carries another state, and still logs in with the right one', async () => {
    let ignored = ''
    const run = await webLogin({}, async (url) => {
      const redirect = new URL(url).searchParams.get('redirect_uri')!
      ignored = await (await fetch(`${redirect}?code=forged&state=not-the-one`)).text()
      await answerInBrowser(browser, url, person)
    })
    expect(ignored).toContain('does not belong to this login')
    expect(run.code).toBe(0)
  }, 30_000)

  it('exits 4 when the person denies access, storing nothing, and tells the browser too', async () => {
    let landing = ''
    const run = await webLogin({}, async (url) => {
      landing = (await answerInBrowser(browser, url, person, { decision: 'deny' })).text
    })
    expect(landing).toContain('Login was not approved')
    expect(run.code).toBe(4)
    expect(run.stderr).toContain('the login failed')
    expect(storedFile(run.env.XDG_CONFIG_HOME!)).toBeNull()
  }, 30_000)

  it('asks for the scopes given with --scope and stores what was granted', async () => {
    let asked: string | null = null
    const run = await webLogin({ extra: ['--scope', 'read:orders read:users'] }, async (url) => {
      asked = new URL(url).searchParams.get('scope')
      await answerInBrowser(browser, url, person)
    })
    expect(asked!).toBe('read:orders read:users')
    expect(run.code).toBe(0)
    const granted = String(storedFile(run.env.XDG_CONFIG_HOME!)!.servers[server.url]!.scope).split(' ')
    expect(granted.sort()).toEqual(['read:orders', 'read:users'])
  }, 30_000)

  it('asks a person with an authenticator app for its code after the password, then logs in', async () => {
    const { orgId } = await server.tenant()
    const grace = { email: `grace-${crypto.randomUUID().slice(0, 8)}@example.com`, password: 'compiler 1952' }
    const { id } = await createUser(server.store, { org: orgId, name: 'Grace', role: 'member', ...grace })
    const { key, sealed } = await newTotpSecret({ store: server.store })
    await server.store.signIn.startTotp(id, sealed, Date.now())
    // Confirmed at step 1, long past: any current code is accepted once.
    await server.store.signIn.acceptTotpStep(id, 1, Date.now(), true)
    let landing = ''
    const run = await webLogin({}, async (url) => {
      landing = (await answerInBrowser(browser, url, grace, { secondFactor: () => totpCode(key) })).text
    })
    expect(landing).toContain('You are logged in')
    expect(run.code).toBe(0)
    const whoami = await runCli(['whoami'], { env: run.env })
    expect(JSON.parse(whoami.stdout)).toMatchObject({ kind: 'user', subject: id })
    // The sign-in went through the second step.
    const signIns = (await userEvents(server, id)).filter((e) => e.type === 'user.signed_in')
    expect(signIns.map((e) => e.data.secondFactor)).toEqual(['totp'])
  }, 30_000)
})
