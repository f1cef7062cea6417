/**
 * A harness for the console's browser tests: a server with the demo organizations and users (and
 * the demo records when the schema is the built-in example's), and a Chromium page signed in to
 * /console through the real login page as one of them.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { DEMO_USERS, seed } from '../../server/admin/seed.ts'
import type { ServeOptions } from '../../server/serve.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

export { chromiumAvailable, withBrowser } from '../oauth/browser.ts'

type DemoUser = (typeof DEMO_USERS)[number]

/** A demo user by role (`admin`, `member`, `viewer` of Acme; `bob` is Globex's admin). */
export const demoUser = (role: 'admin' | 'member' | 'viewer' | 'bob'): DemoUser =>
  role === 'bob'
    ? DEMO_USERS.find((u) => u.org === 'Globex')!
    : DEMO_USERS.find((u) => u.org === 'Acme' && u.role === role)!

/**
 * Starts a server over `schema` (the built-in example by default) with the demo data loaded; http
 * webhook URLs to loopback are allowed, so that endpoints can be made in a test; `options.webhooks`
 * may shorten the worker's schedule (a delivery that fails at once).
 */
export async function startConsoleServer(
  schema?: Schema,
  options: { webhooks?: ServeOptions['webhooks'] } = {},
): Promise<TestServer> {
  const server = await startTestServer({
    ...(schema ? { schema } : {}),
    webhooks: { allowHttp: true, ...options.webhooks },
  })
  await seed(server.store)
  return server
}

/** Opens /console (or `path` under it) in `context`, signs in as `user` on the login page, and waits for the page. */
export async function signInToConsole(
  context: BrowserContext,
  server: Pick<TestServer, 'url'>,
  user: Pick<DemoUser, 'email' | 'password'>,
  path = '/console/',
): Promise<Page> {
  const page = await context.newPage()
  await page.goto(`${server.url}${path}`)
  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password').fill(user.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(
    (url) => url.pathname.startsWith('/console') && !url.pathname.startsWith('/console/callback'),
  )
  await page.getByRole('navigation', { name: 'Console' }).waitFor()
  return page
}
