import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import type { Page } from 'playwright-core'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { chromiumAvailable, startClientSite, withBrowser } from './browser.ts'
import { discover, orgWithUsers, PASSWORD, pkce } from './support.ts'

/** The login, consent and device pages in a real headless Chromium (Debian's package). */
const run = chromiumAvailable()
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let site: ReturnType<typeof startClientSite>
let cli: oidc.Configuration

beforeAll(async () => {
  if (!run) return
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  cli = await discover(server, CLI_CLIENT_ID)
  site = startClientSite({
    '/frame': '<!doctype html><title>frame</title><iframe id="f" src="AUTHORIZE"></iframe>',
    '/forged':
      '<!doctype html><title>forged</title><form method="post" action="DEVICE"><input type="hidden" name="step" value="code"><input type="hidden" name="user_code" value="BBBB-BBBB"><input type="hidden" name="csrf" value="guess"><button>Win a prize</button></form>',
  })
})
afterAll(async () => {
  if (!run) return
  site.stop()
  await server.stop()
})

async function authorizationUrl(scope = 'read:orders write:orders') {
  const { verifier, challenge, state } = await pkce()
  const url = oidc.buildAuthorizationUrl(cli, {
    redirect_uri: `${site.origin}/callback`,
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  })
  return { url: String(url), verifier, state }
}

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    return el?.id || el?.textContent?.trim() || ''
  })

describe.skipIf(!run)('authorization code + PKCE in Chromium', () => {
  it('logs in, shows the consent, and lands on the loopback callback with code, state and iss — without JavaScript', async () => {
    const { url, verifier, state } = await authorizationUrl()
    const callback = await withBrowser(
      async (context) => {
        const page = await context.newPage()
        await page.goto(url)
        expect(await page.title()).toBe('Sign in · api-service')
        await page.getByLabel('Email').fill(acme.member.email)
        await page.getByLabel('Password').fill(PASSWORD)
        await page.getByRole('button', { name: 'Sign in', exact: true }).click()
        await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
        const text = await page.locator('main').textContent()
        expect(text).toContain('api command-line client')
        expect(text).toContain('Read orders')
        expect(text).toContain('Create, change and delete orders')
        await page.getByRole('button', { name: 'Allow' }).click()
        await page.waitForURL(`${site.origin}/callback?**`)
        return new URL(page.url())
      },
      { javaScriptEnabled: false },
    )
    expect(callback.searchParams.get('iss')).toBe(server.url)
    const tokens = await oidc.authorizationCodeGrant(cli, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    })
    expect(tokens.scope).toBe('read:orders write:orders')
    const use = await server.fetch('/api/v1/orders', {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    })
    expect(use.status).toBe(200)
  }, 60_000)

  it('is usable from the keyboard: labelled fields, focus order email, password, Sign in; Allow, Deny', async () => {
    const { url, state } = await authorizationUrl()
    const callback = await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(url)
      const unlabelled = await page.evaluate(
        () =>
          [...document.querySelectorAll('input:not([type=hidden])')].filter(
            (i) => (i as HTMLInputElement).labels?.length === 0,
          ).length,
      )
      expect(unlabelled).toBe(0)
      expect(await focused(page)).toBe('email')
      await page.keyboard.type(acme.viewer.email)
      await page.keyboard.press('Tab')
      expect(await focused(page)).toBe('password')
      await page.keyboard.type(PASSWORD)
      await page.keyboard.press('Tab')
      expect(await focused(page)).toBe('Sign in')
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
      expect(await focused(page)).toBe('Allow')
      await page.keyboard.press('Tab')
      expect(await focused(page)).toBe('Deny')
      await page.keyboard.press('Tab')
      expect(await focused(page)).toContain('Use another account')
      await page.keyboard.press('Shift+Tab')
      await page.keyboard.press('Enter')
      await page.waitForURL(`${site.origin}/callback?**`)
      return new URL(page.url())
    })
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({
      error: 'access_denied',
      state,
      iss: server.url,
    })
  }, 60_000)

  it('cannot be framed by another site (X-Frame-Options and frame-ancestors)', async () => {
    const { url } = await authorizationUrl()
    const frameSrc = await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.route(`${site.origin}/frame`, async (route) => {
        const response = await route.fetch()
        await route.fulfill({
          response,
          body: (await response.text()).replace('AUTHORIZE', url.replace(/&/g, '&amp;')),
        })
      })
      await page.goto(`${site.origin}/frame`)
      await page.waitForTimeout(500)
      const frame = page.frames().find((f) => f !== page.mainFrame())!
      return {
        url: frame.url(),
        forms: await frame
          .locator('form')
          .count()
          .catch(() => 0),
      }
    })
    expect(frameSrc.forms).toBe(0)
    expect(frameSrc.url).not.toStartWith(server.url)
  }, 60_000)

  it('refuses a form another site makes the browser post (CSRF)', async () => {
    const text = await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(`${server.url}/device`) // the browser now has this site's CSRF cookie
      await page.route(`${site.origin}/forged`, async (route) => {
        const response = await route.fetch()
        await route.fulfill({
          response,
          body: (await response.text()).replace('DEVICE', `${server.url}/device`),
        })
      })
      await page.goto(`${site.origin}/forged`)
      await page.getByRole('button', { name: 'Win a prize' }).click()
      await page.waitForURL(`${server.url}/device`)
      return page.locator('main').textContent()
    })
    expect(text).toContain('This form cannot be accepted')
  }, 60_000)
})

/** Reads the JSON lines a child process prints. */
function lines(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  return async (): Promise<Record<string, string>> => {
    while (!buffer.includes('\n')) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the process ended; output so far: ${buffer}`)
      buffer += decoder.decode(value, { stream: true })
    }
    const at = buffer.indexOf('\n')
    const line = buffer.slice(0, at)
    buffer = buffer.slice(at + 1)
    return JSON.parse(line)
  }
}

describe.skipIf(!run)('the device flow in Chromium, polled from another process', () => {
  it('approves on /device (code from verification_uri_complete, login, consent); the other process gets the tokens', async () => {
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, 'fixtures/device-client.ts'), server.url],
      {
        stdout: 'pipe',
        stderr: 'inherit',
      },
    )
    const next = lines(child.stdout)
    const started = await next()
    const text = await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(started.verification_uri_complete!)
      expect(await page.getByLabel('Code').inputValue()).toBe(started.user_code!)
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.getByLabel('Email').fill(acme.admin.email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
      expect(await page.locator('main').textContent()).toContain(started.user_code!)
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.getByRole('heading', { name: 'Device connected' }).waitFor()
      return page.locator('main').textContent()
    })
    expect(text).toContain('go back to your device')
    const tokens = await next()
    expect(await child.exited).toBe(0)
    expect(tokens.scope).toBe('read:orders')
    expect(tokens.refresh_token).toStartWith('rt_')
    const use = await server.fetch('/api/v1/orders', {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    })
    expect(use.status).toBe(200)
  }, 60_000)
})
