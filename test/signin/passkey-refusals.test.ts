import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { authorizationPath, orgWithUsers, PageAgent, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { passwordOnAccount } from './support.ts'
import { craftAssertion, knownPasskey, passkeyFormOf, postPasskeyLogin } from './webauthn.ts'

/**
 * What a passkey sign-in (POST /login/passkey) refuses, with assertions made in the test from a
 * credential's own private key and posted over HTTP, each part as the case says. The credential
 * is registered in the store as a registration would leave it (its browser side is tested in
 * passkeys.browser.test.ts). The server's base URL is http://localhost:PORT.
 */
let server: TestServer
let users: Awaited<ReturnType<typeof orgWithUsers>>
let credential: ReturnType<typeof knownPasskey>['credential']
let counter = 1000
const CALLBACK = 'http://127.0.0.1:8100/callback'

beforeAll(async () => {
  server = await startTestServer({ host: 'localhost' })
  users = await orgWithUsers(server, 'Acme')
  const known = knownPasskey(users.viewer.id)
  credential = known.credential
  await server.store.signIn.addPasskey({ ...known.stored, name: 'Key', signCount: counter }, Date.now())
})
afterAll(() => server.stop())

const origin = () => server.url
const valid = (challenge: string, overrides: Partial<Parameters<typeof craftAssertion>[0]> = {}) =>
  craftAssertion({ credential, challenge, origin: origin(), signCount: ++counter, ...overrides })
const textOf = async (response: Response) => (await response.text()).replace(/&#39;|’/g, "'")

describe('POST /login/passkey', () => {
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
  const refusals: [string, (challenge: string, stored: number) => Record<string, string>, number, string][] =
    [
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
    const response = await postPasskeyLogin(server.url, '/account', (challenge) => answer(challenge, stored))
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
      redirectUris: [CALLBACK],
      grantTypes: ['authorization_code'],
    })
    const { path: authorize } = await authorizationPath({ clientId: client.id, redirectUri: CALLBACK })
    const response = await postPasskeyLogin(server.url, authorize, (c) => valid(c))
    expect(response.status).toBe(401)
    expect(await textOf(response)).toContain('belongs to an account that cannot sign in here')
    expect(response.headers.getSetCookie().join()).not.toContain('oauth_login=')
  })
})

describe('POST /account, step passkey-add (a registration)', () => {
  const registration = (type: string, challenge: string, at = origin()) => ({
    client_data_json: Buffer.from(JSON.stringify({ type, challenge, origin: at })).toString('base64url'),
    // Not an attestation object: every case below is refused before it, or because of it.
    attestation_object: Buffer.from('not cbor').toString('base64url'),
  })
  const cases: [string, (own: string, other: string) => Record<string, string>, string][] = [
    [
      'another origin',
      (own) => registration('webauthn.create', own, 'http://127.0.0.1:1'),
      'passkey-refused-origin',
    ],
    [
      'a challenge issued for a sign-in, not to this user for a registration',
      (_own, other) => registration('webauthn.create', other),
      'passkey-refused-challenge',
    ],
    [
      'an assertion posted as a registration',
      (own) => registration('webauthn.get', own),
      'passkey-refused-malformed',
    ],
    [
      'an attestation object that is not one',
      (own) => registration('webauthn.create', own),
      'passkey-refused-malformed',
    ],
    ['no name', (own) => ({ ...registration('webauthn.create', own), name: ' ' }), 'passkey-name'],
  ]
  it.each(cases)(
    'refuses %s: back to /account with the reason tied to the name field, nothing stored',
    async (_n, answer, notice) => {
      const agent = new PageAgent(server.url)
      const other = passkeyFormOf(await (await agent.get('/account')).text()).options.challenge
      await passwordOnAccount(agent, users.member.email)
      const form = passkeyFormOf(await (await agent.get('/account')).text(), 'create')
      const response = await agent.request(form.action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
        body: new URLSearchParams({
          ...form.fields,
          name: 'Laptop',
          ...answer(form.options.challenge, other),
        }).toString(),
      })
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe(`/account?notice=${notice}`)
      const page = await (await agent.get(response.headers.get('location')!)).text()
      expect(page).toContain('<p class="error" id="passkey-name-error" role="alert">')
      expect(page).toMatch(/id="passkey-name"[^>]*aria-describedby="passkey-name-error"/)
      expect(await server.store.signIn.passkeysOf(users.member.id)).toEqual([])
    },
  )
})
