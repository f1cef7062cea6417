import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import { hashToken } from '../../server/crypto/token-hash.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { expectOAuthError } from '../auth/oauth-assertions.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  answerDevicePrompt,
  discover,
  oauthErrorOf,
  orgWithUsers,
  PageAgent,
  postForm,
  registerClient,
} from './support.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let cli: oidc.Configuration
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  cli = await discover(server, CLI_CLIENT_ID)
})
afterAll(() => server.stop())

const start = (scope = 'read:orders write:orders') =>
  postForm(server, '/oauth/device_authorization', { client_id: CLI_CLIENT_ID, scope }).then(
    async (r) =>
      (await r.json()) as Record<string, string | number> & { device_code: string; user_code: string },
  )
const poll = (deviceCode: string, clientId = CLI_CLIENT_ID) =>
  postForm(server, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId })
/** Forgets the last poll, so that the next one is not "too fast" without waiting 5 s in a test. */
const forgetLastPoll = async (deviceCode: string) =>
  await server.sql.run(
    'UPDATE oauth_device_codes SET last_polled_at = NULL WHERE hash = ?',
    hashToken(deviceCode),
  )

describe('POST /oauth/device_authorization (RFC 8628 §3.1)', () => {
  it('answers a device code, an XXXX-XXXX user code, the verification URIs, 600 s and 5 s', async () => {
    const response = await postForm(server, '/oauth/device_authorization', { client_id: CLI_CLIENT_ID })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as Record<string, unknown>
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(body).toMatchObject({
      verification_uri: `${server.url}/device`,
      verification_uri_complete: `${server.url}/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    })
    expect(body.device_code).toStartWith('dc_')
  })

  it('refuses a client not registered for the grant, and unknown scopes', async () => {
    const web = await registerClient(server, {
      orgId: acme.orgId,
      public: true,
      grantTypes: ['authorization_code'],
    })
    await expectOAuthError(
      await postForm(server, '/oauth/device_authorization', { client_id: web.id }),
      400,
      'unauthorized_client',
    )
    await expectOAuthError(
      await postForm(server, '/oauth/device_authorization', {
        client_id: CLI_CLIENT_ID,
        scope: 'read:secrets',
      }),
      400,
      'invalid_scope',
    )
  })
})

describe('the device flow with openid-client', () => {
  it('completes once the user approves on /device, with a refresh token', async () => {
    const authorization = await oidc.initiateDeviceAuthorization(cli, { scope: 'read:orders write:orders' })
    const polling = oidc.pollDeviceAuthorizationGrant(cli, authorization)
    // People type codes loosely: lower case, no dash, spaces.
    const typed = authorization.user_code.toLowerCase().replace('-', ' ')
    const done = await answerDevicePrompt(new PageAgent(server.url), typed, acme.member.email)
    expect(done).toContain('Device connected')
    const tokens = await polling
    expect(tokens.scope).toBe('read:orders write:orders')
    expect(tokens.refresh_token).toStartWith('rt_')
    const use = await server.fetch('/api/v1/orders', {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    })
    expect(use.status).toBe(200)
  }, 20_000)

  it('ends in access_denied when the user denies', async () => {
    const authorization = await oidc.initiateDeviceAuthorization(cli, {})
    const polling = oidc.pollDeviceAuthorizationGrant(cli, authorization)
    const done = await answerDevicePrompt(
      new PageAgent(server.url),
      authorization.user_code,
      acme.member.email,
      'deny',
    )
    expect(done).toContain('Access denied')
    expect(await oauthErrorOf(polling)).toBe('access_denied')
  }, 20_000)
})

describe('polling the token endpoint (RFC 8628 §3.5)', () => {
  it('answers authorization_pending, then slow_down for a fast poll, raising and keeping the interval', async () => {
    const { device_code } = await start()
    await expectOAuthError(await poll(device_code), 400, 'authorization_pending')
    const fast = await expectOAuthError(await poll(device_code), 400, 'slow_down')
    expect(fast.error_description).toContain('10 seconds')
    const row = await server.sql.get(
      'SELECT interval FROM oauth_device_codes WHERE hash = ?',
      hashToken(device_code),
    )
    expect(row).toEqual({ interval: 10 })
    await expectOAuthError(await poll(device_code), 400, 'slow_down')
    expect(
      await server.sql.get('SELECT interval FROM oauth_device_codes WHERE hash = ?', hashToken(device_code)),
    ).toEqual({ interval: 15 })
  })

  it('answers expired_token after expires_in', async () => {
    const { device_code } = await start()
    await server.sql.run(
      "UPDATE oauth_device_codes SET expires_at = '2000-01-01T00:00:00.000Z' WHERE hash = ?",
      hashToken(device_code),
    )
    await expectOAuthError(await poll(device_code), 400, 'expired_token')
  })

  it('issues tokens once: a second poll after success is invalid_grant', async () => {
    const { device_code, user_code } = await start()
    await answerDevicePrompt(new PageAgent(server.url), user_code, acme.viewer.email)
    const first = await poll(device_code)
    expect(first.status).toBe(200)
    expect(((await first.json()) as { scope: string }).scope).toBe('read:orders')
    await forgetLastPoll(device_code)
    await expectOAuthError(await poll(device_code), 400, 'invalid_grant')
  })

  it('binds the device code to its client', async () => {
    const other = await registerClient(server, { orgId: null, public: true, grantTypes: [DEVICE_GRANT] })
    const { device_code } = await start()
    await expectOAuthError(await poll(device_code, other.id), 400, 'invalid_grant')
    await expectOAuthError(await poll('dc_unknown'), 400, 'invalid_grant')
  })
})

describe('GET /device', () => {
  it('shows the code from verification_uri_complete for confirmation, without looking it up', async () => {
    const { user_code, verification_uri_complete } = await start()
    const page = await (await new PageAgent(server.url).get(String(verification_uri_complete))).text()
    expect(page).toContain(`value="${user_code}"`)
    expect(page).toContain('Check that it matches the code on your device')
    expect(page).toContain('name="step" value="code"')
  })

  it('refuses a wrong or used code with a message and no redirect', async () => {
    const agent = new PageAgent(server.url)
    const page = await (await agent.get('/device')).text()
    const wrong = await agent.submit(page, 'code', { user_code: 'BBBB-BBBB' })
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toContain('not valid or has expired')
  })
})
