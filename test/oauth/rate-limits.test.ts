import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { orgWithUsers, PASSWORD, PageAgent, pkce, postForm } from './support.ts'

/** Failed logins and user-code guesses are limited (in memory, per instance): this file has its own server. */
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
})
afterAll(() => server.stop())

async function loginPage(agent: PageAgent) {
  const { challenge } = await pkce()
  const params = {
    response_type: 'code',
    client_id: CLI_CLIENT_ID,
    redirect_uri: 'http://127.0.0.1:9000/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }
  return (await agent.get(`/oauth/authorize?${new URLSearchParams(params)}`)).text()
}

const tryLogin = async (email: string, password: string) => {
  const agent = new PageAgent(server.url)
  return agent.submit(await loginPage(agent), 'login', { email, password })
}

describe('failed logins', () => {
  it('lock an account after 5 failures in 15 minutes, even for the right password, with 429 and Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await tryLogin(acme.viewer.email, `wrong ${i}`)).status).toBe(401)
    // The account is named case-insensitively.
    const locked = await tryLogin(acme.viewer.email.toUpperCase(), PASSWORD)
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800)
    expect(await locked.text()).toContain('Too many failed sign-ins')
    // Other accounts are not locked by it.
    expect((await tryLogin(acme.member.email, PASSWORD)).status).toBe(303)
  })

  it('lock an address after 20 failures in 15 minutes, whatever the accounts', async () => {
    // 5 failures came from the test above; 15 more on unknown accounts reach 20.
    for (let i = 0; i < 15; i++) expect((await tryLogin(`nobody${i}@acme.example`, 'x')).status).toBe(401)
    expect((await tryLogin(acme.admin.email, PASSWORD)).status).toBe(429)
  })
})

describe('user-code guessing on /device (RFC 8628 §5.1)', () => {
  it('stops an address after 10 wrong codes, even for a right one', async () => {
    const response = await postForm(server, '/oauth/device_authorization', { client_id: CLI_CLIENT_ID })
    const { user_code } = (await response.json()) as { user_code: string }
    const agent = new PageAgent(server.url)
    const page = await (await agent.get('/device')).text()
    for (let i = 0; i < 10; i++)
      expect((await agent.submit(page, 'code', { user_code: `BBBB-BBB${'CDFGHJKLMN'[i]}` })).status).toBe(400)
    const blocked = await agent.submit(page, 'code', { user_code })
    expect(blocked.status).toBe(429)
    expect(blocked.headers.get('retry-after')).not.toBeNull()
  })
})
