/**
 * The steps of scripts/signin-smoke.ts and what a person does on the pages, by the controls'
 * accessible names (docs/oauth.md, "The pages and their names").
 */
import { stripVTControlCharacters } from 'node:util'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { decodeJwt } from 'jose'
import type { Page } from 'playwright-core'
import { authorizationPath } from '../test/oauth/support.ts'
import { totpCode } from '../test/signin/support.ts'

/** A step that failed: its name, what went wrong and where. */
export class StepFailed extends Error {}

/** The page the steps drive now, for a failure to say where it was and what the page said. */
let shown: Page | undefined

/** Playwright's waits give up after this: a missing control fails its step in seconds, not minutes. */
export function watch(page: Page): Page {
  page.setDefaultTimeout(10_000)
  shown = page
  return page
}

/**
 * A failure in a line or two: the error's first line, what Playwright was waiting for (a control
 * by its name), and the page it was on with its alerts.
 */
async function whatWentWrong(error: unknown): Promise<string> {
  // Playwright dims its call log with escape codes.
  const lines = stripVTControlCharacters(error instanceof Error ? error.message : String(error)).split('\n')
  const waiting = lines.find((line) => line.trim().startsWith('- waiting for'))?.trim()
  let where = ''
  if (shown && !shown.isClosed()) {
    const alerts = (await shown.getByRole('alert').allTextContents()).map((a) => a.trim()).filter(Boolean)
    where = `\n      on ${shown.url()}${alerts.length ? `, which says "${alerts.join(' ')}"` : ''}`
  }
  return `${lines[0]}${waiting ? ` (${waiting.slice(2)})` : ''}${where}`
}

/** Runs `body` as the step `name`: `ok  name (detail)` once it is done, else a StepFailed naming it. */
export async function step<T>(
  name: string,
  body: () => Promise<T>,
  detail?: (result: T) => string,
): Promise<T> {
  let result: T
  try {
    result = await body()
  } catch (error) {
    throw new StepFailed(`${name}: ${await whatWentWrong(error)}`)
  }
  console.log(`ok  ${name}${detail ? ` (${detail(result)})` : ''}`)
  return result
}

/** What a token was and what the API answered to it. */
interface Authorized {
  sub: string | undefined
  orders: number
}

/** The step's detail when the token is `user`'s, else a throw. */
export const tokenFor =
  (user: { id: string; email: string }) =>
  (got: Authorized): string => {
    if (got.sub !== user.id) throw new Error(`the token is for ${got.sub}, not ${user.email} (${user.id})`)
    return `a token for ${user.email}, GET /api/v1/orders ${got.orders}`
  }

/** The people's doings on the server at `base`, signing in to the client whose redirect is at `siteOrigin`. */
export function pagesOf(base: string, siteOrigin: string, password: string) {
  const clientId = 'api-cli'
  const redirectUri = `${siteOrigin}/callback`
  return {
    /**
     * The CLI client's authorization code flow with PKCE: the authorization request, `signIn` on
     * our pages, Allow on the consent page, the code exchanged at /oauth/token, the token used on
     * GET /api/v1/orders. Answers the token's subject and the API's status.
     */
    async authorize(page: Page, signIn: () => Promise<void>): Promise<Authorized> {
      const { path, verifier, state } = await authorizationPath({
        clientId,
        redirectUri,
        scope: 'read:orders',
      })
      await page.goto(`${base}${path}`)
      await signIn()
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor()
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.waitForURL(`${redirectUri}?**`)
      const back = new URL(page.url())
      if (back.searchParams.get('state') !== state) throw new Error(`the client got back ${back.search}`)
      const token = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: back.searchParams.get('code') ?? '',
          redirect_uri: redirectUri,
          client_id: clientId,
          code_verifier: verifier,
        }),
      })
      if (token.status !== 200)
        throw new Error(`POST /oauth/token answered ${token.status}: ${await token.text()}`)
      const { access_token } = (await token.json()) as { access_token: string }
      const orders = await fetch(`${base}/api/v1/orders`, {
        headers: { Authorization: `Bearer ${access_token}` },
      })
      if (orders.status !== 200)
        throw new Error(`GET /api/v1/orders with the token answered ${orders.status}`)
      return { sub: decodeJwt(access_token).sub, orders: orders.status }
    },

    /** The login page's password form. */
    async password(page: Page, email: string) {
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    },

    atVerify: (page: Page) => page.getByRole('heading', { name: 'Two-step verification' }).waitFor(),

    /** Sets up the authenticator app on /account from the key shown there; answers the key and the recovery codes. */
    async enrolTotp(page: Page) {
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
      await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor()
      const shownKey = (await page.locator('#totp-key').textContent()) ?? ''
      const key = decodeBase32IgnorePadding(shownKey.replaceAll(' ', ''))
      await page.getByLabel('Code from the app').fill(totpCode(key))
      await page.getByRole('button', { name: 'Confirm' }).click()
      const list = page.getByRole('list', { name: 'Your recovery codes' })
      await list.waitFor()
      const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim())
      if (codes.length !== 10) throw new Error(`${codes.length} recovery codes shown, not 10`)
      await page.getByRole('link', { name: 'Back to your account' }).click()
      return { key, codes }
    },

    /** `Sign out` on /account, which then shows the login page. */
    async signOut(page: Page) {
      await page.goto(`${base}/account`)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
    },
  }
}
