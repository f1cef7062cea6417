import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser } from '../../server/admin/users.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { orgWithUsers, PASSWORD, PageAgent, pkce, registerClient } from './support.ts'

/** The login and consent pages over plain HTTP: headers, CSRF, what they show. Chromium drives them in pages.browser.test.ts. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
})
afterAll(() => server.stop())

async function authorizeUrl(
  clientId = CLI_CLIENT_ID,
  redirect = 'http://127.0.0.1:8100/callback',
  scope = 'read:orders write:line-items',
) {
  const { challenge, state } = await pkce()
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope,
  }
  return `/oauth/authorize?${new URLSearchParams(params)}`
}

/** A logged-in agent on the consent page. */
async function atConsent(email = acme.member.email, url?: string) {
  const agent = new PageAgent(server.url)
  const start = url ?? (await authorizeUrl())
  const login = await agent.submit(await (await agent.get(start)).text(), 'login', {
    email,
    password: PASSWORD,
  })
  expect(login.status).toBe(303)
  const consent = await agent.get(login.headers.get('location')!)
  return { agent, consent, page: await consent.clone().text(), start }
}

function expectPageHeaders(response: Response) {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
  expect(response.headers.get('x-frame-options')).toBe('DENY')
  expect(response.headers.get('referrer-policy')).toBe('no-referrer')
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  const csp = response.headers.get('content-security-policy')!
  expect(csp).toContain("default-src 'none'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).toContain("form-action 'self'")
  expect(csp).not.toContain('unsafe-inline')
}

describe('page headers (clickjacking, caching, referrer: RFC 9700 §4.16)', () => {
  it('are set on the login, consent, device and error pages', async () => {
    const agent = new PageAgent(server.url)
    expectPageHeaders(await agent.get(await authorizeUrl()))
    expectPageHeaders((await atConsent()).consent)
    expectPageHeaders(await agent.get('/device'))
    expectPageHeaders(await agent.get('/oauth/authorize?client_id=nobody'))
  })

  it("let the consent page's form lead on to the client's redirect origin, and nowhere else", async () => {
    const { consent } = await atConsent()
    const csp = consent.headers.get('content-security-policy')!
    expect(csp).toContain("form-action 'self' http://127.0.0.1:8100;")
  })
})

describe('the login page', () => {
  it('has labelled fields in order, e-mail first, and at an IP address no script and no passkey button', async () => {
    const response = await new PageAgent(server.url).get(await authorizeUrl())
    const page = await response.text()
    expect(page).toContain('<label for="email">Email</label>')
    expect(page).toContain('<label for="password">Password</label>')
    expect(page.indexOf('id="email"')).toBeLessThan(page.indexOf('id="password"'))
    expect(page).toContain('<html lang="en">')
    // Browsers use no passkey at http://127.0.0.1: a button there could only fail.
    expect(page).not.toContain('<script')
    expect(page).not.toContain('Sign in with a passkey')
    expect(response.headers.get('content-security-policy')).not.toContain('script-src')
  })

  it('at http://localhost offers the passkey button, with no script but the passkey script of its own origin', async () => {
    const local = await startTestServer({ host: 'localhost' })
    try {
      const response = await new PageAgent(local.url).get('/account')
      const page = await response.text()
      expect(page).toContain('Sign in with a passkey')
      expect([...page.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
        '<script src="/login/passkey.js" defer>',
      ])
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self';")
      // Its challenge is signed, not stored: showing a login page writes nothing.
      const stored = await local.sql.get<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM webauthn_challenges',
      )
      expect(Number(stored!.n)).toBe(0)
    } finally {
      await local.stop()
    }
  })

  it('serves the passkey script as JavaScript; the consent and device pages run no script at all', async () => {
    const script = await server.fetch('/login/passkey.js')
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await script.text()).toContain('navigator.credentials.get')
    const { consent, page } = await atConsent()
    const device = await new PageAgent(server.url).get('/device')
    for (const [response, text] of [
      [consent, page],
      [device, await device.clone().text()],
    ] as const) {
      expect(text).not.toContain('<script')
      expect(response.headers.get('content-security-policy')).not.toContain('script-src')
    }
  })

  it('names an icon that needs no request, which its CSP allows: a browser asks no /favicon.ico, which would be 404', async () => {
    const response = await new PageAgent(server.url).get(await authorizeUrl())
    expect(await response.text()).toContain('<link rel="icon" href="data:,">')
    expect(response.headers.get('content-security-policy')).toContain('img-src data:;')
    expect((await server.fetch('/favicon.ico')).status).toBe(404)
  })

  it('answers a wrong password with 401, the e-mail kept and an alert, and no cookie', async () => {
    const agent = new PageAgent(server.url)
    const page = await (await agent.get(await authorizeUrl())).text()
    const response = await agent.submit(page, 'login', {
      email: acme.member.email,
      password: 'wrong password',
    })
    expect(response.status).toBe(401)
    const text = await response.text()
    expect(text).toContain('role="alert"')
    expect(text).toContain(`value="${acme.member.email}"`)
    expect(response.headers.getSetCookie().join()).not.toContain('oauth_login')
  })

  it('sets a signed, HttpOnly, SameSite=Lax login cookie of 10 minutes and answers 303', async () => {
    const agent = new PageAgent(server.url)
    const page = await (await agent.get(await authorizeUrl())).text()
    const response = await agent.submit(page, 'login', { email: acme.member.email, password: PASSWORD })
    expect(response.status).toBe(303)
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('oauth_login='))!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toContain('Path=/')
    expect(cookie).toContain('Max-Age=600')
  })
})

describe('the consent page', () => {
  it('names the client and the scopes in plain words, escaping what it shows', async () => {
    const evil = await registerClient(server, {
      orgId: acme.orgId,
      public: true,
      name: '<script>alert(1)</script> Reports',
      redirectUris: ['http://127.0.0.1/cb'],
    })
    const { page } = await atConsent(
      acme.viewer.email,
      await authorizeUrl(evil.id, 'http://127.0.0.1:8200/cb', 'read:orders write:orders'),
    )
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Reports')
    expect(page).not.toContain('<script>')
    expect(page).toContain('Read orders')
    // A viewer cannot grant write:orders: the page says so instead of offering it.
    expect(page).toContain('it will not get: Create, change and delete orders')
  })

  it('ignores an answer from a user other than the one it was shown to', async () => {
    const { agent, page, start } = await atConsent()
    const other = await agent.get(start)
    // Log in as someone else in the same browser, then send the first consent form.
    await agent.submit(await other.text(), 'switch')
    const relog = await agent.submit(await (await agent.get(start)).text(), 'login', {
      email: acme.admin.email,
      password: PASSWORD,
    })
    expect(relog.status).toBe(303)
    const response = await agent.submit(page, 'consent', { decision: 'allow' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toStartWith('/oauth/authorize?')
  })

  it('"Use another account" logs out and goes back to the login page', async () => {
    const { agent, page, start } = await atConsent()
    const response = await agent.submit(page, 'switch')
    expect(response.status).toBe(303)
    expect(response.headers.getSetCookie().join()).toContain('Max-Age=0')
    expect(await (await agent.get(start)).text()).toContain('name="step" value="login"')
  })
})

describe('CSRF protection of the forms', () => {
  it.each([
    ['without the CSRF field', { csrf: '' }, {}],
    ['with a CSRF field that is not the cookie', { csrf: 'A'.repeat(43) }, {}],
    ['from another origin', {}, { Origin: 'https://evil.example' }],
    ['with Origin: null', {}, { Origin: 'null' }],
    ['marked cross-site by the browser', {}, { 'Sec-Fetch-Site': 'cross-site' }],
    ['marked same-site (a sibling host) by the browser', {}, { 'Sec-Fetch-Site': 'same-site' }],
  ])('refuses a consent answer %s with 403 and no code', async (_, fields, headers) => {
    const { agent, page } = await atConsent()
    const response = await agent.submit(page, 'consent', { decision: 'allow', ...fields }, headers)
    expect(response.status).toBe(403)
    expect(response.headers.get('location')).toBeNull()
  })

  it('accepts Origin: null from a same-origin form, as Chromium sends it under Referrer-Policy: no-referrer', async () => {
    const { agent, page } = await atConsent()
    const response = await agent.submit(
      page,
      'consent',
      { decision: 'allow' },
      { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    )
    expect(response.status).toBe(303)
    expect(new URL(response.headers.get('location')!).searchParams.get('code')).toStartWith('ac_')
  })

  it('refuses a login form whose signed request was changed', async () => {
    const agent = new PageAgent(server.url)
    const page = await (await agent.get(await authorizeUrl())).text()
    const response = await agent.submit(page, 'login', {
      email: acme.member.email,
      password: PASSWORD,
      request: 'eyJ9.forged',
    })
    expect(response.status).toBe(400)
  })
})

describe('one e-mail and password in several organizations', () => {
  it('asks which organization, then acts in the one chosen', async () => {
    const other = await server.store.orgs.create('Initech')
    await createUser(server.store, {
      org: other.id,
      email: acme.member.email,
      name: 'Twin',
      role: 'viewer',
      password: PASSWORD,
    })
    const agent = new PageAgent(server.url)
    const start = await authorizeUrl()
    const chooser = await agent.submit(await (await agent.get(start)).text(), 'login', {
      email: acme.member.email,
      password: PASSWORD,
    })
    const page = await chooser.text()
    expect(page).toContain('Initech (viewer)')
    expect(page).toContain('Acme (member)')
    const id = /value="(usr_[^"]+)"[^>]*> Initech/.exec(page)![1]!
    const chosen = await agent.submit(page, 'choose', { account: id })
    expect(chosen.status).toBe(303)
    const consent = await (await agent.get(chosen.headers.get('location')!)).text()
    expect(consent).toContain('in Initech')
  })
})
