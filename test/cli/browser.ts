/**
 * A real headless Chromium that plays the person at the browser in the login tests: it types the
 * device code, signs in on the server's pages and allows access.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

const CHROMIUM = '/usr/bin/chromium'
export const chromiumAvailable = existsSync(CHROMIUM)

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface Person {
  email: string
  password: string
}

/**
 * Opens `url` in a fresh browser context and walks the server's pages: the device code form (typed
 * when `userCode` is given), sign-in, the second factor, the organization choice, then the consent
 * page's `decision`.
 * Returns where the browser ended and the text it shows.
 */
export async function answerInBrowser(
  browser: Browser,
  url: string,
  person: Person,
  /** `secondFactor` gives the code to type on `/login/verify` (an authenticator app's). */
  options: { userCode?: string; decision?: 'allow' | 'deny'; secondFactor?: () => string } = {},
): Promise<{ url: string; text: string }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const submit = async (selector: string) => {
    await Promise.all([page.waitForNavigation(), page.click(selector)])
  }
  try {
    await page.goto(url)
    for (let step = 0; step < 8; step++) {
      if (await page.locator('#user_code').count()) {
        if (options.userCode) await page.fill('#user_code', options.userCode)
        await submit('form button[type=submit]')
      } else if (await page.locator('#password').count()) {
        await page.fill('#email', person.email)
        await page.fill('#password', person.password)
        await submit('form button[type=submit]')
      } else if (options.secondFactor && (await page.locator('#code').count())) {
        await page.fill('#code', options.secondFactor())
        await submit('form button[type=submit]')
      } else if (await page.locator('input[name=account]').count()) {
        await page.locator('input[name=account]').first().check()
        await submit('form button[type=submit]')
      } else if (await page.locator('button[name=decision]').count()) {
        await submit(`button[name=decision][value=${options.decision ?? 'allow'}]`)
        break
      } else break
    }
    return { url: page.url(), text: (await page.textContent('body')) ?? '' }
  } finally {
    await context.close()
  }
}
