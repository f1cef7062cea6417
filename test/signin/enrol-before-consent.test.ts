/**
 * An organization's second-factor policy (`api-server org update ORG --require-2fa`) over HTTP: a
 * signed-in user it requires a factor of, who has none, is sent to /account?next=<the page> before
 * any consent page, code or device approval (docs/oauth.md, "Policies, recovery and events").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test'
import { hashToken } from '../../server/crypto/token-hash.ts'
import type { SecondFactorPolicy } from '../../server/store/sql/sign-in.ts'
import { CLI_CLIENT_ID, CONSOLE_CLIENT_ID } from '../../server/store/types.ts'
import {
  authorizationPath,
  orgWithUsers,
  PASSWORD,
  PageAgent,
  postForm,
  registerClient,
} from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let web: { id: string }
const REDIRECT = 'http://127.0.0.1:9999/cb'
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  web = await registerClient(server, {
    orgId: acme.orgId,
    public: true,
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code'],
  })
})
afterAll(() => server.stop())
beforeEach(async () => {
  await server.store.signIn.setPolicy(acme.orgId, 'none')
})

async function authorizeUrl(clientId = web.id, redirectUri = REDIRECT): Promise<string> {
  return (await authorizationPath({ clientId, redirectUri, scope: 'read:orders' })).path
}

/** Signs `email` in on the login page of `url` and answers where the browser is sent next. */
async function signIn(agent: PageAgent, url: string, email: string): Promise<string> {
  const page = await (await agent.get(url)).text()
  const response = await agent.submit(page, 'login', { email, password: PASSWORD })
  expect(response.status).toBe(303)
  return response.headers.get('location')!
}

/** Where `url` sends a browser signed in as `email`: 200 (a page) or the 303's location. */
async function visit(agent: PageAgent, url: string): Promise<{ status: number; location: string | null }> {
  const response = await agent.get(url)
  return { status: response.status, location: response.headers.get('location') }
}

const enrolPage = (next: string) => `/account?next=${encodeURIComponent(next)}`
/** The device code a `/device?flow=` link stands for, whatever its signature and expiry. */
const deviceOf = (location: string) => {
  const flow = new URL(location, 'http://x').searchParams.get('flow') ?? ''
  const url = new URL(location, 'http://x')
  expect(url.pathname).toBe('/device')
  return (JSON.parse(Buffer.from(flow.split('.')[0] ?? '', 'base64url').toString()) as { d: unknown }).d
}

/** The page /account is to lead back to: the device page's flow is signed anew on each answer. */
const nextOf = (location: string | null) => {
  const url = new URL(location ?? '/', 'http://x')
  expect(url.pathname).toBe('/account')
  return url.searchParams.get('next')
}

/** A confirmed authenticator app, as /account leaves one (the secret is never read here). */
async function enrolTotp(userId: string) {
  await server.store.signIn.startTotp(userId, 'sealed-for-the-test', Date.now())
  expect(await server.store.signIn.acceptTotpStep(userId, 1, Date.now(), true)).toBe(true)
}

const codesOf = async (userId: string) =>
  Number(
    (
      (await server.sql.get(
        'SELECT COUNT(*) AS n FROM oauth_authorization_codes WHERE user_id = ?',
        userId,
      )) as {
        n: number
      }
    ).n,
  )

describe('GET /oauth/authorize with a policy', () => {
  const cases: { policy: SecondFactorPolicy; role: 'admin' | 'member' | 'viewer'; enrolFirst: boolean }[] = [
    { policy: 'none', role: 'admin', enrolFirst: false },
    { policy: 'admins', role: 'admin', enrolFirst: true },
    { policy: 'admins', role: 'member', enrolFirst: false },
    { policy: 'all', role: 'member', enrolFirst: true },
    { policy: 'all', role: 'viewer', enrolFirst: true },
  ]
  it.each(cases)(
    'policy $policy, a $role without a factor: sent to /account first is $enrolFirst',
    async ({ policy, role, enrolFirst }) => {
      await server.store.signIn.setPolicy(acme.orgId, policy)
      const agent = new PageAgent(server.url)
      const url = await authorizeUrl()
      const next = await signIn(agent, url, acme[role].email)
      expect(next).toBe(url)
      const answer = await visit(agent, next)
      if (enrolFirst) expect(answer).toEqual({ status: 303, location: enrolPage(url) })
      else expect(answer).toEqual({ status: 200, location: null })
    },
  )

  it('shows the consent page once the user has a factor', async () => {
    await server.store.signIn.setPolicy(acme.orgId, 'all')
    const agent = new PageAgent(server.url)
    const url = await authorizeUrl()
    await signIn(agent, url, acme.viewer.email)
    expect((await visit(agent, url)).location).toBe(enrolPage(url))
    await enrolTotp(acme.viewer.id)
    const page = await agent.get(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Allow access?')
  })

  it('gives the console no code: its path without consent is sent to /account too', async () => {
    await server.store.signIn.setPolicy(acme.orgId, 'admins')
    const agent = new PageAgent(server.url)
    const url = await authorizeUrl(CONSOLE_CLIENT_ID, `${server.url}/console/callback`)
    await signIn(agent, url, acme.admin.email)
    expect(await visit(agent, url)).toEqual({ status: 303, location: enrolPage(url) })
    expect(await codesOf(acme.admin.id)).toBe(0)
  })
})

describe('POST /oauth/authorize step=consent with a policy', () => {
  it('refuses an Allow answered after the policy came in: /account, and no code', async () => {
    const agent = new PageAgent(server.url)
    const url = await authorizeUrl()
    await signIn(agent, url, acme.member.email)
    const consent = await (await agent.get(url)).text()
    expect(consent).toContain('Allow access?')
    await server.store.signIn.setPolicy(acme.orgId, 'all')
    const answer = await agent.submit(consent, 'consent', { decision: 'allow' })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('location')).toBe(enrolPage(url))
    expect(await codesOf(acme.member.id)).toBe(0)
  })
})

describe('/device with a policy', () => {
  const start = async () =>
    (await (
      await postForm(server, '/oauth/device_authorization', {
        client_id: CLI_CLIENT_ID,
        scope: 'read:orders',
      })
    ).json()) as { device_code: string; user_code: string }
  const poll = async (deviceCode: string) => {
    await server.sql.run(
      'UPDATE oauth_device_codes SET last_polled_at = NULL WHERE hash = ?',
      hashToken(deviceCode),
    )
    const response = await postForm(server, '/oauth/token', {
      grant_type: DEVICE_GRANT,
      device_code: deviceCode,
      client_id: CLI_CLIENT_ID,
    })
    return ((await response.json()) as { error?: string; access_token?: string }).error ?? 'token'
  }
  /** The code typed in, then the login: where the browser is sent after signing in. */
  const signInOnDevicePage = async (agent: PageAgent, userCode: string, email: string) => {
    const codePage = await (await agent.get('/device')).text()
    const flow = (await agent.submit(codePage, 'code', { user_code: userCode })).headers.get('location')!
    // Back to the same device flow: signed anew, so its expiry may have moved by a second.
    expect(deviceOf(await signIn(agent, flow, email))).toEqual(deviceOf(flow))
    return flow
  }

  it('sends an admin without a factor to /account before the consent page; the device waits', async () => {
    await server.store.signIn.setPolicy(acme.orgId, 'admins')
    const { device_code, user_code } = await start()
    const agent = new PageAgent(server.url)
    const flow = await signInOnDevicePage(agent, user_code, acme.admin.email)
    const answer = await visit(agent, flow)
    expect(answer.status).toBe(303)
    expect(nextOf(answer.location)).toStartWith('/device?flow=')
    expect(await poll(device_code)).toBe('authorization_pending')
  })

  it('refuses an approval answered after the policy came in, and approves once a factor is enrolled', async () => {
    const { device_code, user_code } = await start()
    const agent = new PageAgent(server.url)
    const flow = await signInOnDevicePage(agent, user_code, acme.member.email)
    const consent = await (await agent.get(flow)).text()
    expect(consent).toContain('Allow access?')
    await server.store.signIn.setPolicy(acme.orgId, 'all')
    const refused = await agent.submit(consent, 'consent', { decision: 'allow' })
    expect(refused.status).toBe(303)
    expect(nextOf(refused.headers.get('location'))).toStartWith('/device?flow=')
    expect(await poll(device_code)).toBe('authorization_pending')
    await enrolTotp(acme.member.id)
    const again = await agent.submit(consent, 'consent', { decision: 'allow' })
    expect(again.headers.get('location')).toBe('/device?done=approved')
    expect(await poll(device_code)).toBe('token')
  })
})
