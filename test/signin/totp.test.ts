import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { orgWithUsers, PageAgent } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { enrolTotp, passwordOnAccount, totpCode } from './support.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
})
afterAll(() => server.stop())

describe('the authenticator app as a second factor', () => {
  it('asks a user who enrolled for a code after the password, and signs in with it', async () => {
    const { key } = await enrolTotp(server.url, acme.member.email)
    const agent = new PageAgent(server.url)
    expect(await passwordOnAccount(agent, acme.member.email)).toBe('/login/verify')
    const account = await agent.get('/account')
    expect(await account.text()).toContain('name="password"')
    const verify = await (await agent.get('/login/verify')).text()
    expect(verify).toContain('Two-step verification')
    // The confirmation used this step: the next one (one step of drift) signs in.
    const done = await agent.submit(verify, 'totp', { code: totpCode(key, 1) })
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe('/account')
    expect(await (await agent.get('/account')).text()).toContain('Your account')
  })
})
