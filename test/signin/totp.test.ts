import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { authorizationPath, orgWithUsers, PageAgent, postForm } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  atVerify,
  enrolTotp,
  keyOnPage,
  passwordOnAccount,
  totpCode,
  userEvents,
  wrongCode,
} from './support.ts'

/** The authenticator app (RFC 6238) and recovery codes as the second step of a sign-in, over HTTP. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let enrolled: Awaited<ReturnType<typeof enrolTotp>>
/** The code the sign-in below used: its time step is spent. */
let usedCode = ''

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  enrolled = await enrolTotp(server.url, acme.member.email)
})
afterAll(() => server.stop())

const REDIRECT = 'http://127.0.0.1:8100/callback'

async function authorizeUrl() {
  const { path, verifier } = await authorizationPath({
    clientId: CLI_CLIENT_ID,
    redirectUri: REDIRECT,
    scope: 'read:orders',
  })
  return { url: path, verifier }
}

describe('enrolling on /account', () => {
  it('shows a QR code of the otpauth URI as an SVG data image, the key as text, and a confirmation field', async () => {
    const agent = new PageAgent(server.url)
    await passwordOnAccount(agent, acme.viewer.email)
    const start = await agent.submit(await (await agent.get('/account')).text(), 'totp-start')
    expect(start.status).toBe(303)
    const page = await (await agent.get('/account')).text()
    const image =
      /<img alt="QR code for your authenticator app"[^>]* src="data:image\/svg\+xml;base64,([^"]+)">/.exec(
        page,
      )
    expect(Buffer.from(image![1]!, 'base64').toString()).toStartWith('<svg')
    expect(page).toMatch(/<code id="totp-key">([A-Z2-7]{4} ){7}[A-Z2-7]{4}<\/code>/)
    expect(page).toContain('<label for="totp-code">Code from the app</label>')
    // A wrong code is refused with an alert tied to the field, and the enrolment stays pending.
    const wrong = await agent.submit(page, 'totp-confirm', { code: wrongCode(keyOnPage(page)) })
    expect(wrong.headers.get('location')).toBe('/account?notice=totp-code-wrong')
    const again = await (await agent.get(wrong.headers.get('location')!)).text()
    expect(again).toContain('id="totp-code-error" role="alert"')
    expect(again).toContain('aria-describedby="totp-code-error"')
    expect((await server.store.signIn.factorsOf(acme.viewer.id)).totp).toBe(false)
  })

  it('confirms with a code, shows ten recovery codes once, and counts them on the page', async () => {
    expect(enrolled.codes).toHaveLength(10)
    expect(new Set(enrolled.codes).size).toBe(10)
    for (const code of enrolled.codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/)
    expect(await server.store.signIn.factorsOf(acme.member.id)).toEqual({
      totp: true,
      passkeys: 0,
      recoveryCodesLeft: 10,
    })
    const page = await (await enrolled.agent.get('/account')).text()
    expect(page).toContain('10 of 10 recovery codes left')
    expect(page).toContain('Remove the authenticator app')
    for (const code of enrolled.codes) expect(page).not.toContain(code)
  })
})

describe('signing in with a second factor', () => {
  it('goes password, /login/verify, code, consent, and the client gets an authorization code', async () => {
    const { url, verifier } = await authorizeUrl()
    const agent = new PageAgent(server.url)
    const login = await agent.submit(await (await agent.get(url)).text(), 'login', {
      email: acme.member.email,
      password: 'correct horse battery',
    })
    expect(login.headers.get('location')).toBe('/login/verify')
    // The pending cookie alone never reaches consent: the authorization asks for the login again.
    const early = await (await agent.get(url)).text()
    expect(early).toContain('name="step" value="login"')
    expect(early).not.toContain('Allow access?')
    const verify = await agent.get('/login/verify')
    expect(verify.status).toBe(200)
    const page = await verify.text()
    expect(page).toContain('<h1>Two-step verification</h1>')
    expect(page).toContain('<label for="code">Authentication code</label>')
    expect(page).toContain('<label for="recovery">Recovery code</label>')
    usedCode = totpCode(enrolled.key, 1)
    const done = await agent.submit(page, 'totp', { code: usedCode })
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe(url)
    const consent = await (await agent.get(url)).text()
    expect(consent).toContain('Allow access?')
    const allowed = await agent.submit(consent, 'consent', { decision: 'allow' })
    const callback = new URL(allowed.headers.get('location')!)
    expect(callback.origin + callback.pathname).toBe(REDIRECT)
    const token = await postForm(server, '/oauth/token', {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: CLI_CLIENT_ID,
      code_verifier: verifier,
    })
    expect(token.status).toBe(200)
  })

  it('refuses the same code a second time, and a wrong one, with 401 and an alert on the field', async () => {
    // The used code, and the one before it (an older step), then wrong ones.
    for (const code of [usedCode, totpCode(enrolled.key, 0), wrongCode(enrolled.key), 'abcdef']) {
      const { agent, page } = await atVerify(server.url, acme.member.email)
      const refused = await agent.submit(page, 'totp', { code })
      expect(refused.status).toBe(401)
      const text = await refused.text()
      expect(text).toContain('id="code-error" role="alert"')
      expect(text).toContain('aria-describedby="code-error"')
      expect(agent.cookies.has('oauth_login')).toBe(false)
    }
    // The failures above counted on the throttle; a success resets it (this file's users stay usable).
  })

  it('accepts a recovery code once (case and dashes do not matter) and refuses it the second time', async () => {
    const code = enrolled.codes[3]!
    const first = await atVerify(server.url, acme.member.email)
    const used = await first.agent.submit(first.page, 'recovery', {
      recovery_code: code.replace('-', '').toUpperCase(),
    })
    expect(used.status).toBe(303)
    expect(used.headers.get('location')).toBe('/account')
    expect(first.agent.cookies.has('oauth_login')).toBe(true)
    expect(first.agent.cookies.has('oauth_pending')).toBe(false)
    expect(await (await first.agent.get('/account')).text()).toContain('9 of 10 recovery codes left')
    const second = await atVerify(server.url, acme.member.email)
    const refused = await second.agent.submit(second.page, 'recovery', { recovery_code: code })
    expect(refused.status).toBe(401)
    expect(await refused.text()).toContain('id="recovery-error" role="alert"')
  })

  it('answers a page saying the sign-in expired, with a link to start again, without a pending cookie', async () => {
    const response = await server.fetch('/login/verify')
    expect(response.status).toBe(400)
    const page = await response.text()
    expect(page).toContain('Sign-in expired')
    expect(page).toContain('href="/account"')
  })

  it('refuses a form without the CSRF value', async () => {
    const { agent, page } = await atVerify(server.url, acme.member.email)
    const forged = await agent.submit(page, 'totp', { code: totpCode(enrolled.key), csrf: 'x'.repeat(43) })
    expect(forged.status).toBe(403)
  })
})

describe('events', () => {
  it('append user.mfa_enrolled and user.signed_in with both factors, actor and request id, and no secret', async () => {
    const events = await userEvents(server, acme.member.id)
    const enrolment = events.find((e) => e.type === 'user.mfa_enrolled')!
    expect(enrolment.data).toMatchObject({ factor: 'totp' })
    const signIns = events.filter((e) => e.type === 'user.signed_in').map((e) => e.data.secondFactor)
    expect(signIns).toEqual([null, 'totp', 'recovery_code'])
    const own = events.filter((e) => e.type !== 'user.created')
    expect(own.length).toBe(4)
    for (const event of own) {
      expect(event.actor_type).toBe('user')
      expect(event.actor_id).toBe(acme.member.id)
      expect(event.request_id).toBeTruthy()
      const key = Buffer.from(enrolled.key).toString('base64')
      for (const secret of [key, ...enrolled.codes, ...enrolled.codes.map((c) => c.replace('-', ''))])
        expect(event.raw).not.toContain(secret)
      expect(event.raw).not.toMatch(/"\d{6}"/)
    }
  })
})

describe('a user whose only second factor is a passkey', () => {
  it('is asked for the second step without the authenticator app field', async () => {
    await server.store.signIn.addPasskey(
      { id: 'cred-1', userId: acme.viewer.id, name: 'Laptop', algorithm: -7, publicKey: 'AA', signCount: 0 },
      Date.now(),
    )
    const { page } = await atVerify(server.url, acme.viewer.email)
    expect(page).toContain('<h1>Two-step verification</h1>')
    expect(page).not.toContain('Authentication code')
    expect(page).toContain('<label for="recovery">Recovery code</label>')
  })
})
