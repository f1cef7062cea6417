import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chromiumAvailable, withBrowser } from '../oauth/browser.ts'
import { authorizationRequest, type IdpWorld, startIdpWorld } from './support.ts'

/** The login page's provider link in a real headless Chromium, through the local provider's own pages. */
const run = chromiumAvailable()
let world: IdpWorld
beforeAll(async () => {
  if (run) world = await startIdpWorld()
})
afterAll(() => world?.stop())

describe.skipIf(!run)('Sign in with Corp SSO in Chromium', () => {
  it('goes from the login page through the provider to the consent page, signed in', async () => {
    const { url } = await authorizationRequest(world, world.acmeClient)
    await withBrowser(async (context) => {
      const page = await context.newPage()
      await page.goto(String(url))
      await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click()
      await page.getByPlaceholder('Enter any login').fill(world.acme.member.email)
      await page.getByPlaceholder('and password').fill('anything')
      await page.getByRole('button', { name: 'Sign-in' }).click()
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.waitForURL(`${world.server.baseUrl}/oauth/authorize**`)
      await expect(page.getByRole('button', { name: 'Allow' }).isVisible()).resolves.toBe(true)
      expect(await page.textContent('body')).toContain(world.acme.member.email)
    })
  })
})
