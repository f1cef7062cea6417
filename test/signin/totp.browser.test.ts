import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import type { Page } from 'playwright-core'
import { chromiumAvailable, withBrowser } from '../oauth/browser.ts'
import { orgWithUsers, PASSWORD } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { totpCode } from './support.ts'

/** Enrolling the authenticator app on /account and signing in with it, in a real headless Chromium. */
const run = chromiumAvailable()
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  if (!run) return
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
})
afterAll(async () => {
  if (run) await server.stop()
})

async function signInWithPassword(page: Page) {
  await page.goto(`${server.url}/account`)
  await page.getByLabel('Email').fill(acme.member.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

const signOut = (page: Page) => page.getByRole('button', { name: 'Sign out' }).click()

describe.skipIf(!run)('the authenticator app in Chromium', () => {
  it('enrols from the key on the page, signs in with a code, and uses a recovery code once', async () => {
    const problems: string[] = []
    await withBrowser(async (context) => {
      const page = await context.newPage()
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text())
      })
      await signInWithPassword(page)
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
      const qr = page.getByRole('img', { name: 'QR code for your authenticator app' })
      // The image loaded under the page's CSP (img-src data:).
      expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true)
      const shown = (await page.locator('#totp-key').textContent())!.replaceAll(' ', '')
      const key = decodeBase32IgnorePadding(shown)
      await page.getByLabel('Code from the app').fill(totpCode(key))
      await page.getByRole('button', { name: 'Confirm' }).click()
      const list = page.getByRole('list', { name: 'Your recovery codes' })
      const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim())
      expect(codes).toHaveLength(10)
      await page.getByRole('link', { name: 'Back to your account' }).click()
      expect(await page.locator('main').textContent()).toContain('10 of 10 recovery codes left')
      await signOut(page)

      await signInWithPassword(page)
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor()
      await page.getByLabel('Authentication code').fill(totpCode(key, 1))
      await page.getByRole('button', { name: 'Verify' }).click()
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      await signOut(page)

      for (const outcome of ['accepted', 'refused']) {
        await signInWithPassword(page)
        await page.getByLabel('Recovery code').fill(codes[0]!)
        await page.getByRole('button', { name: 'Use a recovery code' }).click()
        if (outcome === 'accepted') {
          await page.getByRole('heading', { name: 'Your account' }).waitFor()
          expect(await page.locator('main').textContent()).toContain('9 of 10 recovery codes left')
          await signOut(page)
        } else {
          const alert = page.getByRole('alert')
          expect(await alert.textContent()).toContain('That recovery code is not right, or was used already.')
          expect(await page.getByLabel('Recovery code').getAttribute('aria-describedby')).toBe(
            'recovery-error',
          )
        }
      }
    })
    // The one error Chromium reports is the refused form's 401 itself.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([])
  })
})
