import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import type { Browser, Page } from 'playwright-core'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { chromiumAvailable, startClientSite } from '../oauth/browser.ts'
import { discover, orgWithUsers, PASSWORD, pkce, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  craftAssertion,
  launchChromium,
  postPasskeyLogin,
  type VirtualCredential,
  virtualAuthenticator,
} from './webauthn.ts'

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

beforeAll(async () => {
  if (!run) return
  server = await startTestServer({ host: 'localhost' })
  users = await orgWithUsers(server, 'Acme')
  cli = await discover(server, CLI_CLIENT_ID)
  site = startClientSite()
  browser = await launchChromium()
})
afterAll(async () => {
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
  await signInWithPassword(page, email)
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
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

describe.skipIf(!run)(
  'what a passkey sign-in refuses (assertions made with the credential’s own key, posted over HTTP)',
  () => {
    let credential: VirtualCredential
    let counter = 1000
    const origin = () => server.url
    const valid = (challenge: string, overrides: Partial<Parameters<typeof craftAssertion>[0]> = {}) =>
      craftAssertion({ credential, challenge, origin: origin(), signCount: ++counter, ...overrides })
    const textOf = async (response: Response) => (await response.text()).replace(/&#39;|’/g, "'")

    beforeAll(async () => {
      const { page, authenticator, close } = await freshPage()
      try {
        await addPasskey(page, users.viewer.email, 'Key')
        ;[credential] = (await authenticator.credentials()) as [VirtualCredential]
      } finally {
        await close()
      }
    })

    it('signs in with a right assertion: 303 to where the sign-in began, with the login cookie', async () => {
      const response = await postPasskeyLogin(server.url, '/account', (challenge) => valid(challenge))
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe('/account')
      expect(response.headers.getSetCookie().join()).toContain('oauth_login=')
    })

    it('refuses the same assertion twice (its challenge is taken by the first)', async () => {
      let body: Record<string, string> = {}
      const first = await postPasskeyLogin(server.url, '/account', (challenge) => {
        body = valid(challenge)
        return body
      })
      expect(first.status).toBe(303)
      const again = await postPasskeyLogin(server.url, '/account', () => body)
      expect(again.status).toBe(401)
      expect(await textOf(again)).toContain('expired or was used already')
    })

    // `stored`: the passkey's counter as the server keeps it, read before each post.
    const refusals: [
      string,
      (challenge: string, stored: number) => Record<string, string>,
      number,
      string,
    ][] = [
      [
        'a counter that went backwards',
        (c) => valid(c, { signCount: 5 }),
        401,
        'counter did not move forward',
      ],
      [
        'a counter that stayed',
        (c, stored) => valid(c, { signCount: stored }),
        401,
        'counter did not move forward',
      ],
      [
        'another origin in the client data (the page served from 127.0.0.1, the base URL localhost)',
        (c) => valid(c, { origin: origin().replace('localhost', '127.0.0.1') }),
        401,
        'answered for another site',
      ],
      ['another relying party id', (c) => valid(c, { rpId: '127.0.0.1' }), 401, 'made for another site'],
      ['no user verification (a touch only)', (c) => valid(c, { flags: 0x01 }), 401, 'did not verify you'],
      [
        'a signature that does not match',
        (c) => ({ ...valid(c), signature: valid(c).signature.replace(/^./, (x) => (x === 'M' ? 'N' : 'M')) }),
        401,
        'signature does not match',
      ],
      [
        'a registration posted as a sign-in',
        (c) => valid(c, { type: 'webauthn.create' }),
        400,
        'could not be read',
      ],
      [
        'a challenge the server never issued',
        () => valid('bm90LWlzc3VlZC1ieS10aGUtc2VydmVy'),
        401,
        'expired or was used already',
      ],
      ['no passkey at all (the form without its script)', () => ({}), 400, 'Passkeys need JavaScript'],
    ]
    it.each(refusals)('refuses %s', async (_name, answer, status, message) => {
      const id = Buffer.from(credential.credentialId, 'base64').toString('base64url')
      const stored = (await server.store.signIn.findPasskey(id))!.signCount
      expect(stored).toBeGreaterThan(1000)
      const response = await postPasskeyLogin(server.url, '/account', (challenge) =>
        answer(challenge, stored),
      )
      expect(response.status).toBe(status)
      expect(response.headers.getSetCookie().join()).not.toContain('oauth_login=')
      const page = await textOf(response)
      expect(page).toContain(message)
      expect(page).toContain('role="alert"')
    })

    it('refuses a user of another organization when the client belongs to one', async () => {
      const other = await server.store.orgs.create('Globex')
      const client = await registerClient(server, {
        orgId: other.id,
        public: true,
        redirectUris: [`${site.origin}/callback`],
        grantTypes: ['authorization_code'],
      })
      const { challenge } = await pkce()
      const authorize = `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: client.id,
        redirect_uri: `${site.origin}/callback`,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'xyz',
      })}`
      const response = await postPasskeyLogin(server.url, authorize, (c) => valid(c))
      expect(response.status).toBe(401)
      expect(await textOf(response)).toContain('belongs to an account that cannot sign in here')
      expect(response.headers.getSetCookie().join()).not.toContain('oauth_login=')
    })
  },
)
