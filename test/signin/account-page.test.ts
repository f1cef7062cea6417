import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { orgWithUsers, PageAgent } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { atVerify, enrolTotp, keyOnPage, passwordOnAccount, totpCode, userEvents } from './support.ts'

/** /account over HTTP: signing in on it, its sections' changes, the policy's alert, `next`. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let globex: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  globex = await orgWithUsers(server, 'Globex')
})
afterAll(() => server.stop())

describe('GET /account', () => {
  it('shows the login page when signed out, and who is signed in afterwards, with Sign out', async () => {
    const agent = new PageAgent(server.url)
    const login = await (await agent.get('/account')).text()
    expect(login).toContain('<h1>Sign in</h1>')
    expect(await passwordOnAccount(agent, acme.admin.email)).toBe('/account')
    const page = await (await agent.get('/account')).text()
    expect(page).toContain('<h1>Your account</h1>')
    for (const fact of ['admin of Acme', acme.admin.email, '<dd>Acme</dd>', '<dd>admin</dd>'])
      expect(page).toContain(fact)
    const order = ['Authenticator app', 'Recovery codes'].map((h) => page.indexOf(`>${h}</h2>`))
    expect(order[0]).toBeGreaterThan(0)
    expect(order[1]).toBeGreaterThan(order[0]!)
    const out = await agent.submit(page, 'sign-out')
    expect(out.headers.get('location')).toBe('/account')
    expect(agent.cookies.has('oauth_login')).toBe(false)
    expect(await (await agent.get('/account')).text()).toContain('<h1>Sign in</h1>')
  })

  it('ignores a next that is not a path on this server', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const agent = new PageAgent(server.url)
      const path = `/account?next=${encodeURIComponent(next)}`
      expect(await passwordOnAccount(agent, acme.viewer.email, path)).toBe('/account')
    }
  })

  it('refuses a change without the CSRF value', async () => {
    const agent = new PageAgent(server.url)
    await passwordOnAccount(agent, acme.viewer.email)
    const page = await (await agent.get('/account')).text()
    expect((await agent.submit(page, 'totp-start', { csrf: 'y'.repeat(43) })).status).toBe(403)
    expect(await server.store.signIn.totpOf(acme.viewer.id)).toBeNull()
  })
})

describe('an organization that requires a second factor', () => {
  it('says so to an admin without one, keeps next through sign-in and enrolment, then offers Continue', async () => {
    await server.store.signIn.setPolicy(globex.orgId, 'admins')
    const next = '/oauth/authorize?client_id=x'
    const start = `/account?next=${encodeURIComponent(next)}`
    const agent = new PageAgent(server.url)
    expect(await passwordOnAccount(agent, globex.admin.email, start)).toBe(start)
    let page = await (await agent.get(start)).text()
    expect(page).toContain('role="alert">Your organization requires a second factor')
    expect(page).not.toContain('>Continue</a>')
    const started = await agent.submit(page, 'totp-start')
    expect(started.headers.get('location')).toBe(start)
    page = await (await agent.get(start)).text()
    const confirmed = await agent.submit(page, 'totp-confirm', { code: totpCode(keyOnPage(page)) })
    expect(await confirmed.text()).toContain(`href="${start.replaceAll('&', '&amp;')}"`)
    page = await (await agent.get(start)).text()
    expect(page).not.toContain('requires a second factor')
    expect(page).toContain(`<a href="${next}">Continue</a>`)
  })

  it('refuses to remove the last factor it requires, and allows it once another is there or none is required', async () => {
    await server.store.signIn.setPolicy(acme.orgId, 'all')
    const { agent } = await enrolTotp(server.url, acme.member.email)
    const refused = await agent.submit(await (await agent.get('/account')).text(), 'totp-remove')
    expect(refused.headers.get('location')).toBe('/account?notice=factor-required')
    expect(await (await agent.get('/account?notice=factor-required')).text()).toContain(
      'Your organization requires a second factor: add another one before removing your last.',
    )
    expect((await server.store.signIn.factorsOf(acme.member.id)).totp).toBe(true)
    await server.store.signIn.setPolicy(acme.orgId, 'none')
    const removed = await agent.submit(await (await agent.get('/account')).text(), 'totp-remove')
    expect(removed.headers.get('location')).toBe('/account?notice=totp-removed')
    expect((await server.store.signIn.factorsOf(acme.member.id)).totp).toBe(false)
  })

  it('does not ask it of a member when only admins must', async () => {
    const agent = new PageAgent(server.url)
    await passwordOnAccount(agent, globex.member.email)
    expect(await (await agent.get('/account')).text()).not.toContain('requires a second factor')
  })
})

describe('the Passkeys section at an IP address', () => {
  it('says why no passkey can be added there, and loads no script', async () => {
    const agent = new PageAgent(server.url)
    await passwordOnAccount(agent, acme.viewer.email)
    const response = await agent.get('/account')
    const page = await response.text()
    expect(page).toContain(
      `Passkeys need this service at an https address, or at http://localhost on your own machine; it is at ${server.url}.`,
    )
    expect(page).not.toContain('Add a passkey')
    expect(page).not.toContain('<script')
    expect(response.headers.get('content-security-policy')).not.toContain('script-src')
  })
})

describe('changing factors', () => {
  it('makes new recovery codes: the old ones stop working, the new ones work, and an event says so', async () => {
    const { agent, codes } = await enrolTotp(server.url, globex.member.email)
    const renewed = await agent.submit(await (await agent.get('/account')).text(), 'recovery-renew')
    expect(renewed.status).toBe(200)
    const fresh = [...(await renewed.text()).matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)].map(
      (m) => m[1]!,
    )
    expect(fresh).toHaveLength(10)
    const old = await atVerify(server.url, globex.member.email)
    expect((await old.agent.submit(old.page, 'recovery', { recovery_code: codes[0]! })).status).toBe(401)
    const now = await atVerify(server.url, globex.member.email)
    expect((await now.agent.submit(now.page, 'recovery', { recovery_code: fresh[0]! })).status).toBe(303)
    const types = (await userEvents(server, globex.member.id)).map((e) => e.type)
    expect(types).toContain('user.recovery_codes_renewed')
    // Removing the app: the next sign-in needs only the password.
    const removed = await now.agent.submit(await (await now.agent.get('/account')).text(), 'totp-remove')
    expect(removed.headers.get('location')).toBe('/account?notice=totp-removed')
    expect(await (await now.agent.get('/account?notice=totp-removed')).text()).toContain(
      'role="status">The authenticator app was removed.',
    )
    expect(await passwordOnAccount(new PageAgent(server.url), globex.member.email)).toBe('/account')
    const removal = (await userEvents(server, globex.member.id)).find((e) => e.type === 'user.mfa_removed')
    expect(removal?.data).toMatchObject({ factor: 'totp' })
  })
})
