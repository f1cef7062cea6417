/**
 * The events of signing in (docs/oauth.md, "Policies, recovery and events"): `user.signed_in` from
 * the login page and `user.mfa_reset` from `api-server user reset-2fa` carry who acted and the
 * request's id and never a secret, and reach the event log's readers as any event does: the list
 * (`?type=`), a webhook endpoint and a GraphQL subscription.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { runOk } from '../admin/run.ts'
import { subscribe } from '../graphql/subscriptions.ts'
import { authorizationPath, codeFlow, discover, orgWithUsers, PASSWORD, PageAgent } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'

interface Event {
  id: string
  type: string
  resourceId: string
  data: Record<string, unknown>
  actor: { type: string; id: string } | null
  requestId: string | null
}

const TYPES = ['user.signed_in', 'user.mfa_reset']
const TOTP_SECRET = 'sealed-secret-of-the-test'
let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let adminToken: string
let receiver: Receiver

beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowHttp: true, pollMs: 50, attemptTimeoutMs: 1_000 } })
  acme = await orgWithUsers(server, 'Acme')
  const cli = await discover(server, CLI_CLIENT_ID)
  adminToken = (await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', acme.admin.email)).access_token
  receiver = startReceiver()
  const endpoint = await api('/api/v2/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: receiver.url, eventTypes: TYPES }),
    headers: { 'Content-Type': 'application/json' },
  })
  expect(endpoint.status).toBe(201)
})
afterAll(async () => {
  receiver?.stop()
  await server.stop()
})

const api = (path: string, init: RequestInit = {}) =>
  server.fetch(path, { ...init, headers: { ...init.headers, Authorization: `Bearer ${adminToken}` } })

async function eventsOfType(type: string): Promise<Event[]> {
  const response = await api(`/api/v2/events?type=${type}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: Event[] }).data
}

describe('user.signed_in', () => {
  let requestId: string
  let streamed: Promise<{ type: string; resourceId: string }[]>

  beforeAll(async () => {
    // From the admin's own sign-in on: a subscription resumed after it misses nothing later.
    const [last] = await eventsOfType('user.signed_in')
    const subscription = subscribe(server, 'sse', adminToken, { types: TYPES, after: last!.id })
    streamed = subscription.take(1, 10_000).finally(() => subscription.close())
    const agent = new PageAgent(server.url)
    const { path: authorize } = await authorizationPath({
      clientId: CLI_CLIENT_ID,
      redirectUri: 'http://127.0.0.1:5000/callback',
    })
    const login = await agent.submit(await (await agent.get(authorize)).text(), 'login', {
      email: acme.member.email,
      password: PASSWORD,
    })
    expect(login.status).toBe(303)
    requestId = login.headers.get('x-request-id')!
    expect(requestId).toBeTruthy()
  })

  it('is in the log with the user as actor, the login request id, the method, and no password', async () => {
    const event = (await eventsOfType('user.signed_in')).find((e) => e.resourceId === acme.member.id)
    expect(event).toMatchObject({
      type: 'user.signed_in',
      actor: { type: 'user', id: acme.member.id },
      requestId,
      data: { id: acme.member.id, email: acme.member.email, method: 'password' },
    })
    expect(JSON.stringify(event)).not.toContain(PASSWORD)
  })

  it('reaches a GraphQL subscription to the log', async () => {
    const [event] = await streamed
    expect(event).toMatchObject({ type: 'user.signed_in', resourceId: acme.member.id })
    expect(JSON.stringify(event)).not.toContain(PASSWORD)
  })

  it('reaches a webhook endpoint that asked for it', async () => {
    const deliveries = await receiver.waitFor(1)
    const body = JSON.parse(deliveries[0]!.body) as { type: string; data: Record<string, unknown> }
    expect(body).toMatchObject({ type: 'user.signed_in', data: { id: acme.member.id, method: 'password' } })
    expect(deliveries[0]!.body).not.toContain(PASSWORD)
  })
})

describe('user.mfa_reset', () => {
  it('is appended by api-server user reset-2fa with the system as actor, what was removed, and no secret', async () => {
    await server.store.signIn.startTotp(acme.viewer.id, TOTP_SECRET, Date.now())
    await server.store.signIn.acceptTotpStep(acme.viewer.id, 1, Date.now(), true)
    await server.store.signIn.replaceRecoveryCodes(acme.viewer.id, ['hash-1', 'hash-2'], Date.now())
    await runOk(['user', 'reset-2fa', '--org', acme.orgId, '--email', acme.viewer.email], server.dbPath)
    const [event] = await eventsOfType('user.mfa_reset')
    expect(event).toMatchObject({
      resourceId: acme.viewer.id,
      actor: { type: 'system', id: 'api-server' },
      requestId: null,
      data: { id: acme.viewer.id, totp: true, passkeys: 0, recoveryCodes: 2 },
    })
    for (const secret of [TOTP_SECRET, 'hash-1']) expect(JSON.stringify(event)).not.toContain(secret)
    const deliveries = await receiver.waitFor(2)
    expect(deliveries.map((d) => (JSON.parse(d.body) as { type: string }).type)).toContain('user.mfa_reset')
  })
})
