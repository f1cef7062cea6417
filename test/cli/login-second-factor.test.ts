/**
 * `api login --web` (and `api login`, the device flow) through the second factor (docs/oauth.md, "Signing in"): the CLI knows nothing
 * of it, the pages do. A person with an authenticator app answers the verification page; one with a
 * passkey signs in with it alone; a person whose organization requires a factor they lack is led
 * to /account, enrols, and `Continue` brings them back to consent. In a real headless Chromium
 * (with a virtual authenticator for the passkey), against the real server's pages on
 * http://localhost, a secure context as WebAuthn requires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import type { Browser, Page } from 'playwright-core'
import { createUser } from '../../server/admin/users.ts'
import { runOk } from '../admin/run.ts'
import { PASSWORD } from '../oauth/support.ts'
import { enrolTotp, totpCode } from '../signin/support.ts'
import { virtualAuthenticator } from '../signin/webauthn.ts'
import { startTestServer } from '../support/server.ts'
import { chromiumAvailable, launchBrowser } from './browser.ts'
import type { Env } from './fixtures.ts'
import { removeTempDirs, runCli, secret, tempDir } from './harness.ts'

const server = await startTestServer({ host: 'localhost' })
secret(PASSWORD)
let browser: Browser

beforeAll(async () => {
  if (chromiumAvailable) browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server.stop()
  removeTempDirs()
})

/** A new organization with one user of `role`; answers the organization's and the user's ids. */
async function person(role: 'admin' | 'member') {
  const { orgId } = await server.tenant()
  const email = `${role}-${crypto.randomUUID().slice(0, 8)}@example.com`
  const { id } = await createUser(server.store, { org: orgId, email, name: 'Ada', role, password: PASSWORD })
  return { orgId, id, email }
}

const never = new Promise<void>(() => {})
const printedUrl = (stderr: string) =>
  /Open this address in a browser to log in:\n\n {2}(\S+)\n/.exec(stderr)?.[1]

/**
 * Runs `api login --web` in-process; `act` plays the person at the printed URL, on `on` (a page
 * that holds a passkey) or a fresh one.
 */
async function webLogin(act: (page: Page) => Promise<void>, on?: Page) {
  const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  let acting: Promise<void> | undefined
  const run = await runCli(['login', '--web'], {
    env,
    tty: false,
    openBrowser: async () => false,
    sleep: async (ms, sofar) => {
      expect(ms).toBe(5 * 60_000)
      acting = (async () => {
        const context = on ? undefined : await browser.newContext()
        try {
          const page = on ?? (await context!.newPage())
          await page.goto(printedUrl(sofar.stderr)!)
          await act(page)
        } finally {
          await context?.close()
        }
      })()
      return never
    },
  })
  await acting
  return { ...run, env }
}

async function signIn(page: Page, email: string) {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

async function allow(page: Page) {
  await page.getByRole('button', { name: 'Allow' }).click()
  await page.getByText('You are logged in').waitFor()
}

/** Enrols the authenticator app on the account page the person was led to, and continues. */
async function enrolAndContinue(page: Page) {
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const shown = (await page.locator('#totp-key').textContent())!.replaceAll(' ', '')
  await page.getByLabel('Code from the app').fill(totpCode(decodeBase32IgnorePadding(shown)))
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByRole('list', { name: 'Your recovery codes' }).waitFor()
  await page.getByRole('link', { name: 'Back to your account' }).click()
  await page.getByRole('link', { name: 'Continue' }).click()
}

async function whoami(env: Env) {
  const run = await runCli(['whoami'], { env })
  return JSON.parse(run.stdout) as { subject: string }
}

describe.skipIf(!chromiumAvailable)('api login --web with a second factor', () => {
  it('asks a person with an authenticator app for a code after the password, then consent', async () => {
    const ada = await person('member')
    const { key } = await enrolTotp(server.url, ada.email)
    let heading = ''
    const run = await webLogin(async (page) => {
      await signIn(page, ada.email)
      heading = (await page.getByRole('heading', { level: 1 }).textContent()) ?? ''
      // The step after the one enrolment used: a code is accepted once in its window.
      await page.getByLabel('Authentication code').fill(totpCode(key, 1))
      await page.getByRole('button', { name: 'Verify' }).click()
      await allow(page)
    })
    expect(heading).toBe('Two-step verification')
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`Logged in to ${server.url}`)
    expect((await whoami(run.env)).subject).toBe(ada.id)
  }, 60_000)

  it('lets a person with a passkey sign in with it alone, no password, then consent', async () => {
    const ada = await person('member')
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const authenticator = await virtualAuthenticator(page)
      await page.goto(`${server.url}/account`)
      await signIn(page, ada.email)
      await page.getByLabel('Passkey name').fill('Laptop')
      await page.getByRole('button', { name: 'Add a passkey' }).click()
      await page.getByRole('list', { name: 'Your recovery codes' }).waitFor()
      expect(await authenticator.credentials()).toHaveLength(1)
      await page.getByRole('link', { name: 'Back to your account' }).click()
      await page.getByRole('button', { name: 'Sign out' }).click()

      let passwordAsked = true
      const run = await webLogin(async (at) => {
        await at.getByRole('button', { name: 'Sign in with a passkey' }).click()
        await at.getByRole('heading', { name: 'Allow access?' }).waitFor()
        passwordAsked = (await at.getByLabel('Password').count()) > 0
        await allow(at)
      }, page)
      expect(passwordAsked).toBe(false)
      expect(run.code).toBe(0)
      expect((await whoami(run.env)).subject).toBe(ada.id)
    } finally {
      await context.close()
    }
  }, 60_000)

  it('leads an admin whose organization requires a factor to /account first; Continue brings consent', async () => {
    const ada = await person('admin')
    await runOk(['org', 'update', ada.orgId, '--require-2fa', 'admins'], server.dbPath)
    const seen: string[] = []
    const run = await webLogin(async (page) => {
      await signIn(page, ada.email)
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      seen.push(new URL(page.url()).pathname)
      seen.push((await page.getByRole('alert').textContent()) ?? '')
      expect(await page.getByRole('link', { name: 'Continue' }).count()).toBe(0)
      await enrolAndContinue(page)
      seen.push(new URL(page.url()).pathname)
      await allow(page)
    })
    expect(seen[0]).toBe('/account')
    expect(seen[1]).toContain('Your organization requires a second factor')
    expect(seen[2]).toBe('/oauth/authorize')
    expect(run.code).toBe(0)
    expect((await whoami(run.env)).subject).toBe(ada.id)
  }, 60_000)

  it('leads the same way through the device flow: api login waits until the person enrolled and allowed', async () => {
    const ada = await person('member')
    await runOk(['org', 'update', ada.orgId, '--require-2fa', 'all'], server.dbPath)
    const seen: string[] = []
    const polls: string[] = []
    const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
    const run = await runCli(['login'], {
      env,
      tty: true,
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        if (new URL(String(input)).pathname === '/oauth/token')
          polls.push(response.ok ? 'tokens' : ((await response.clone().json()) as { error: string }).error)
        return response
      },
      // verification_uri_complete, opened on a terminal: the person confirms the code, signs in,
      // is led to /account, enrols, continues to the consent page and allows.
      openBrowser: async (url) => {
        const context = await browser.newContext()
        try {
          const page = await context.newPage()
          await page.goto(url)
          await page.getByRole('button', { name: 'Continue' }).click()
          await signIn(page, ada.email)
          await page.getByRole('heading', { name: 'Your account' }).waitFor()
          seen.push((await page.getByRole('alert').textContent()) ?? '')
          await enrolAndContinue(page)
          await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
          seen.push(new URL(page.url()).pathname)
          await page.getByRole('button', { name: 'Allow' }).click()
          await page.getByText('Device connected').waitFor()
          return true
        } finally {
          await context.close()
        }
      },
      // Each wait passes on the server as asked, so the next poll is not too early.
      sleep: async (ms) => {
        await server.sql.run(
          'UPDATE oauth_device_codes SET last_polled_at = ? WHERE last_polled_at IS NOT NULL',
          new Date(Date.now() - ms).toISOString(),
        )
      },
    })
    expect(seen[0]).toContain('Your organization requires a second factor')
    expect(seen[1]).toBe('/device')
    expect(polls.at(-1)).toBe('tokens')
    expect(run.code).toBe(0)
    expect((await whoami(env)).subject).toBe(ada.id)
  }, 60_000)
})
