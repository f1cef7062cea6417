import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import type { Browser, Page } from 'playwright-core'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { removeTempDirs, runCli, tempDir } from '../cli/harness.ts'
import { expectAccessible } from '../console/checks.ts'
import { chromiumAvailable, startClientSite } from '../oauth/browser.ts'
import { discover, orgWithUsers, PASSWORD, pkce } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { launchChromium, virtualAuthenticator } from './webauthn.ts'

/**
 * Passkeys in a real Chromium with a virtual authenticator (the DevTools protocol's WebAuthn
 * domain): registered on /account, used alone to sign in through the authorization code flow, used
 * as the second factor after the password, removed. The server's base URL is http://localhost:PORT,
 * a secure context, as WebAuthn requires.
 */
const run = chromiumAvailable()
let server: TestServer
let browser: Browser
let site: ReturnType<typeof startClientSite>
let cli: oidc.Configuration
let users: Awaited<ReturnType<typeof orgWithUsers>>
/** Users whose passkeys the tests put on the authenticator and in the store themselves. */
let initech: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  if (!run) return
  server = await startTestServer({ host: 'localhost' })
  users = await orgWithUsers(server, 'Acme')
  initech = await orgWithUsers(server, 'Initech')
  cli = await discover(server, CLI_CLIENT_ID)
  site = startClientSite()
  browser = await launchChromium()
})
afterAll(async () => {
  removeTempDirs()
  if (!run) return
  await browser.close()
  site.stop()
  await server.stop()
})

/** A new page with its own cookies and a virtual authenticator. */
async function freshPage() {
  const context = await browser.newContext()
  const page = await context.newPage()
  return { page, authenticator: await virtualAuthenticator(page), close: () => context.close() }
}

async function signInWithPassword(page: Page, email: string) {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

/** Signs in on /account with the password and adds a passkey named `name`; answers the recovery codes shown. */
async function addPasskey(page: Page, email: string, name: string): Promise<string[]> {
  await page.goto(`${server.url}/account`)
  await expectAccessible(page, 'the sign-in page with its passkey button')
  await signInWithPassword(page, email)
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
  await expectAccessible(page, 'the account page with its Passkeys section')
  await page.getByLabel('Passkey name').fill(name)
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  const codes = page.getByRole('list', { name: 'Your recovery codes' })
  await codes.waitFor()
  return codes.getByRole('listitem').allTextContents()
}

const eventsOf = async (userId: string, type: string) =>
  (
    await server.sql.all('SELECT data FROM events WHERE resource_id = ? AND type = ? ORDER BY id', [
      userId,
      type,
    ])
  ).map((row) => JSON.parse(String((row as { data: string }).data)) as Record<string, unknown>)

describe.skipIf(!run)('passkeys in Chromium', () => {
  it('adds a passkey on /account, then signs in with it alone (no password) through the authorization code flow', async () => {
    const { page, authenticator, close } = await freshPage()
    try {
      const codes = await addPasskey(page, users.member.email, 'Work laptop')
      expect(codes).toHaveLength(10)
      const [credential] = await authenticator.credentials()
      expect(credential!.isResidentCredential).toBe(true)
      expect(credential!.rpId).toBe('localhost')
      expect(await eventsOf(users.member.id, 'user.mfa_enrolled')).toEqual([
        expect.objectContaining({ factor: 'passkey', name: 'Work laptop' }),
      ])

      await page.getByRole('link', { name: 'Back to your account' }).click()
      await expectAccessible(page, 'the account page listing a passkey')
      const section = page.getByRole('region', { name: 'Passkeys' })
      expect(await section.getByRole('list', { name: 'Your passkeys' }).textContent()).toContain(
        'Work laptop',
      )
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()

      const { verifier, challenge, state } = await pkce()
      const url = oidc.buildAuthorizationUrl(cli, {
        redirect_uri: `${site.origin}/callback`,
        scope: 'read:orders',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      })
      await page.goto(String(url))
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.waitForURL(`${site.origin}/callback?**`)
      const tokens = await oidc.authorizationCodeGrant(cli, new URL(page.url()), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      })
      const orders = await server.fetch('/api/v1/orders', {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      })
      expect(orders.status).toBe(200)
      const signedIn = await eventsOf(users.member.id, 'user.signed_in')
      expect(signedIn.at(-1)).toMatchObject({ method: 'passkey' })
      expect(JSON.stringify(signedIn)).not.toContain(credential!.privateKey)
    } finally {
      await close()
    }
  })

  it('asks for the passkey as the second factor after the password, and removes it', async () => {
    const { page, close } = await freshPage()
    try {
      await addPasskey(page, users.admin.email, 'Phone')
      await page.getByRole('link', { name: 'Back to your account' }).click()
      await page.getByRole('button', { name: 'Sign out' }).click()

      await signInWithPassword(page, users.admin.email)
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor()
      await expectAccessible(page, 'the second-factor page with Use a passkey')
      await page.getByRole('button', { name: 'Use a passkey' }).click()
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      expect((await eventsOf(users.admin.id, 'user.signed_in')).at(-1)).toMatchObject({
        method: 'password',
        secondFactor: 'passkey',
      })
      const passkeys = await server.store.signIn.passkeysOf(users.admin.id)
      expect(passkeys[0]!.lastUsedAt).not.toBeNull()

      await page.getByRole('button', { name: 'Remove Phone' }).click()
      await page.getByRole('status').filter({ hasText: 'The passkey was removed.' }).waitFor()
      expect(await page.getByRole('button', { name: 'Remove Phone' }).count()).toBe(0)
      expect(await server.store.signIn.passkeysOf(users.admin.id)).toEqual([])
      expect(await eventsOf(users.admin.id, 'user.mfa_removed')).toEqual([
        expect.objectContaining({ factor: 'passkey', name: 'Phone' }),
      ])
    } finally {
      await close()
    }
  })

  it('refuses in the browser a passkey whose counter went back (the authenticator behind the stored counter), then takes it once ahead', async () => {
    const { page, authenticator, close } = await freshPage()
    try {
      const known = await authenticator.add(initech.member.id, 10)
      await server.store.signIn.addPasskey({ ...known, name: 'Cloned', signCount: 50 }, Date.now())
      await page.goto(`${server.url}/account`)
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('heading', { name: 'The passkey was not accepted' }).waitFor()
      expect(await page.getByRole('alert').textContent()).toContain('counter did not move forward')
      expect((await server.store.signIn.findPasskey(known.id))!.signCount).toBe(50)

      await server.sql.run('UPDATE user_passkeys SET sign_count = 5 WHERE id = ?', [known.id])
      await page.getByRole('link', { name: 'Back to sign in' }).click()
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      expect((await server.store.signIn.findPasskey(known.id))!.signCount).toBeGreaterThan(10)
    } finally {
      await close()
    }
  })

  it('logs the CLI in (api login --web) with a passkey alone', async () => {
    const { page, authenticator, close } = await freshPage()
    try {
      const known = await authenticator.add(initech.admin.id, 0)
      await server.store.signIn.addPasskey({ ...known, name: 'Desk key', signCount: 0 }, Date.now())
      const env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
      let acting: Promise<void> | undefined
      let landing = ''
      const login = await runCli(['login', '--web'], {
        env,
        tty: false,
        openBrowser: async () => false,
        sleep: async (_ms, sofar) => {
          const url = /Open this address in a browser to log in:\n\n {2}(\S+)\n/.exec(sofar.stderr)![1]!
          acting = (async () => {
            await page.goto(url)
            await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
            await page.getByRole('button', { name: 'Allow' }).click()
            await page.getByText('You are logged in').waitFor()
            landing = (await page.textContent('body')) ?? ''
          })()
          return new Promise<void>(() => {})
        },
      })
      await acting
      expect(landing).toContain('You are logged in')
      expect(login.code).toBe(0)
      const whoami = await runCli(['whoami'], { env })
      expect(JSON.parse(whoami.stdout)).toMatchObject({ kind: 'user', subject: initech.admin.id })
      expect((await eventsOf(initech.admin.id, 'user.signed_in')).at(-1)).toMatchObject({ method: 'passkey' })
    } finally {
      await close()
    }
  })

  it('explains, without JavaScript, that passkeys need it', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    try {
      const page = await context.newPage()
      await page.goto(`${server.url}/account`)
      expect(await page.locator('main').textContent()).toContain(
        'Passkeys need JavaScript, which is off in this browser.',
      )
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('heading', { name: 'The passkey was not accepted' }).waitFor()
      expect(await page.getByRole('alert').textContent()).toContain('Passkeys need JavaScript')
    } finally {
      await context.close()
    }
  })
})
