import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import { createUser } from '../../server/admin/users.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import {
  authorizationRequest,
  type IdpWorld,
  newAgent,
  providerHref,
  startIdpWorld,
  throughProvider,
} from './support.ts'
import { UPSTREAM_SECRET, upstreamSignIn } from './upstream.ts'

let world: IdpWorld
beforeAll(async () => {
  world = await startIdpWorld()
})
afterAll(() => world?.stop())

const eventsOf = (userId: string) =>
  world.base.sql.all<{ type: string; actor_type: string; actor_id: string; data: string }>(
    'SELECT type, actor_type, actor_id, data FROM events WHERE resource_id = ? ORDER BY id',
    [userId],
  )

describe('signing in through an OpenID Connect provider', () => {
  it('signs in the user with the same verified e-mail, links the identity, and the client gets its token', async () => {
    const agent = newAgent(world)
    const request = await authorizationRequest(world, world.acmeClient)
    const { response } = await throughProvider(agent, request.url, 'corp', world.acme.member.email)
    expect(response.status).toBe(303)
    const consent = await agent.get(response.headers.get('location')!)
    const page = await consent.text()
    expect(page).toContain('Allow')
    const allowed = await agent.submit(page, 'consent', { decision: 'allow' })
    const tokens = await oidc.authorizationCodeGrant(
      request.config,
      new URL(allowed.headers.get('location')!),
      {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
      },
    )
    expect(tokens.access_token).toBeString()
    const linked = await world.base.store.signIn.findIdentity('corp', world.acme.member.email)
    expect(linked?.userId).toBe(world.acme.member.id)
    const types = (await eventsOf(world.acme.member.id)).map((e) => e.type)
    expect(types).toContain('user.identity_linked')
    expect(types).toContain('user.signed_in')
  })

  it('signs in the linked user after their e-mail changed at the provider', async () => {
    world.upstream.accounts.set(world.acme.member.email, {
      email: 'someone-else@elsewhere.example',
      verified: true,
    })
    try {
      const agent = newAgent(world)
      const { url } = await authorizationRequest(world, world.acmeClient)
      const { response } = await throughProvider(agent, url, 'corp', world.acme.member.email)
      expect(response.status).toBe(303)
      const consent = await (await agent.get(response.headers.get('location')!)).text()
      expect(consent).toContain(world.acme.member.email)
    } finally {
      world.upstream.accounts.delete(world.acme.member.email)
    }
  })

  it('refuses a wrong state with 400 and sets no login cookie', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.acmeClient)
    const page = await (await agent.get(String(url))).text()
    const start = await agent.get(providerHref(page, 'corp'))
    const callback = new URL(
      await upstreamSignIn(agent, start.headers.get('location')!, world.acme.admin.email),
    )
    callback.searchParams.set('state', 'forged-state')
    const response = await agent.get(callback.toString())
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('Start again from the sign-in page')
    expect(
      response.headers.getSetCookie().some((c) => c.startsWith('oauth_login=') && !/Max-Age=0/.test(c)),
    ).toBe(false)
    expect(await world.base.store.signIn.findIdentity('corp', world.acme.admin.email)).toBeNull()
  })

  it('refuses a replayed callback (its cookie is gone) and a replayed code (the provider refuses it)', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.acmeClient)
    const first = await throughProvider(agent, url, 'corp', world.acme.admin.email)
    expect(first.response.status).toBe(303)
    expect((await agent.get(first.callback)).status).toBe(400)
    // The same code once more from another browser, with a fresh flow cookie and its state in the URL.
    const other = newAgent(world)
    const page = await (await other.get(String(url))).text()
    const again = await other.get(providerHref(page, 'corp'))
    const state = new URL(again.headers.get('location')!).searchParams.get('state')!
    const replay = new URL(first.callback)
    replay.searchParams.set('state', state)
    const refused = await other.get(replay.toString())
    expect(refused.status).toBe(401)
    expect(await refused.text()).toContain('could not be accepted')
    expect(world.logs.join('\n')).toContain('the provider refused the code (invalid_grant)')
  })

  it('refuses an ID token whose nonce is not this sign-in’s', async () => {
    world.upstream.misbehave.nonce = true
    try {
      const agent = newAgent(world)
      const { url } = await authorizationRequest(world, world.acmeClient)
      const { response } = await throughProvider(agent, url, 'corp', world.acme.viewer.email)
      expect(response.status).toBe(401)
      expect(agent.cookies.has('oauth_login')).toBe(false)
      expect(world.logs.join('\n')).toContain('the ID token is for another sign-in')
      expect(await world.base.store.signIn.findIdentity('corp', world.acme.viewer.email)).toBeNull()
    } finally {
      world.upstream.misbehave.nonce = false
    }
  })

  it('never signs in or links with an unverified e-mail', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.acmeClient)
    const login = `unverified-${world.acme.viewer.email}`
    const { response } = await throughProvider(agent, url, 'corp', login)
    expect(response.status).toBe(403)
    expect(await response.text()).toContain('did not confirm that your e-mail address is verified')
    expect(await world.base.store.signIn.findIdentity('corp', login)).toBeNull()
    expect(agent.cookies.has('oauth_login')).toBe(false)
  })

  it('answers 503 with Retry-After while a provider cannot be reached, and the server goes on', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.acmeClient)
    const page = await (await agent.get(String(url))).text()
    const response = await agent.get(providerHref(page, 'down'))
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('30')
    expect(await response.text()).toContain('Down SSO cannot be reached right now')
    expect((await fetch(`${world.server.baseUrl}/healthz`)).status).toBe(200)
  })

  it('gives up on a provider that does not answer after 5 s: 503', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.acmeClient)
    const page = await (await agent.get(String(url))).text()
    const began = Date.now()
    const response = await agent.get(providerHref(page, 'silent'))
    expect(response.status).toBe(503)
    expect(await response.text()).toContain('Silent SSO cannot be reached right now')
    expect(Date.now() - began).toBeLessThan(8000)
  })

  it('creates a user only where createUsers allows it, in its organization and role', async () => {
    const newcomer = 'newcomer@join.example'
    // corp has no createUsers: nothing is created.
    const agent = newAgent(world)
    const globex = await authorizationRequest(world, world.globexClient)
    const refused = await throughProvider(agent, globex.url, 'corp', newcomer)
    expect(refused.response.status).toBe(403)
    expect(await refused.response.text()).toContain('No account here uses the e-mail address')
    expect(await world.base.store.users.byEmail(newcomer, null)).toEqual([])
    // corp-create creates in Globex as a viewer, with the provider as the event's actor.
    const created = await throughProvider(newAgent(world), globex.url, 'corp-create', newcomer)
    expect(created.response.status).toBe(303)
    const [user] = await world.base.store.users.byEmail(newcomer, null)
    expect(user).toMatchObject({ orgId: world.globex.orgId, role: 'viewer', passwordHash: null })
    const [event] = await eventsOf(user!.id)
    expect(event).toMatchObject({ type: 'user.created', actor_type: 'system', actor_id: 'idp:corp-create' })
  })

  it('respects the client’s organization: an Acme account cannot sign in to a Globex client', async () => {
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.globexClient)
    // Linked to Acme's member by the first test.
    const { response } = await throughProvider(agent, url, 'corp', world.acme.member.email)
    expect(response.status).toBe(403)
    expect(agent.cookies.has('oauth_login')).toBe(false)
  })

  it("takes the provider's error answer: access_denied is 401, another error 400", async () => {
    for (const [error, status] of [
      ['access_denied', 401],
      ['server_error', 400],
    ] as const) {
      const agent = newAgent(world)
      const { url } = await authorizationRequest(world, world.acmeClient)
      const page = await (await agent.get(String(url))).text()
      const start = await agent.get(providerHref(page, 'corp'))
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!
      const response = await agent.get(`/login/corp/callback?state=${state}&error=${error}`)
      expect(response.status).toBe(status)
      expect(await response.text()).toContain('Corp SSO')
      expect(agent.cookies.has('idp_flow')).toBe(false)
    }
  })

  it('answers 404 for a provider it does not have', async () => {
    const response = await fetch(`${world.server.baseUrl}/login/nobody?flow=x`)
    expect(response.status).toBe(404)
  })

  it('keeps client secrets and codes out of its logs and pages', async () => {
    const text = world.logs.join('\n')
    expect(text).toContain('/login/corp/callback')
    for (const secret of [
      UPSTREAM_SECRET,
      'gh-secret-not-for-logs',
      'g-secret-not-for-logs',
      'ms-secret-not-for-logs',
    ])
      expect(text).not.toContain(secret)
    expect(text).not.toMatch(/[?&]code=/)
  })
})

describe('the login page and the well-known providers', () => {
  it('lists a link per provider in the file’s order', async () => {
    const { url } = await authorizationRequest(world, world.acmeClient)
    const page = await (await newAgent(world).get(String(url))).text()
    const names = [...page.matchAll(/<a class="button" href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1])
    for (const secret of [UPSTREAM_SECRET, 'gh-secret-not-for-logs', 'ms-secret-not-for-logs'])
      expect(page).not.toContain(secret)
    expect(names).toEqual([
      'Sign in with Corp SSO',
      'Sign in with Corp Join',
      'Sign in with Down SSO',
      'Sign in with Silent SSO',
      'Sign in with GitHub',
      'Sign in with Google',
      'Sign in with Microsoft',
    ])
  })

  it.each([
    ['github', 'https://github.com/login/oauth/authorize', 'gh-client', 'read:user user:email', false],
    ['google', 'https://accounts.google.com/o/oauth2/v2/auth', 'g-client', 'openid email profile', true],
    [
      'microsoft',
      'https://login.microsoftonline.com/contoso.example/oauth2/v2.0/authorize',
      'ms-client',
      'openid email profile',
      true,
    ],
  ])(
    'sends %s sign-ins to %s with client id, redirect URI, scope, state and PKCE',
    async (key, endpoint, clientId, scope, nonce) => {
      const agent = newAgent(world)
      const { url } = await authorizationRequest(world, world.acmeClient)
      const page = await (await agent.get(String(url))).text()
      const response = await agent.get(providerHref(page, key))
      expect(response.status).toBe(303)
      const location = new URL(response.headers.get('location')!)
      expect(`${location.origin}${location.pathname}`).toBe(endpoint)
      const params = Object.fromEntries(location.searchParams)
      expect(params).toMatchObject({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: `${world.server.baseUrl}/login/${key}/callback`,
        scope,
        code_challenge_method: 'S256',
      })
      expect(params.state).toMatch(/^[A-Za-z0-9_-]{20,}$/)
      expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect('nonce' in params).toBe(nonce)
      expect(location.toString()).not.toContain('secret')
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('idp_flow='))
      expect(cookie).toMatch(/HttpOnly; SameSite=Lax; Max-Age=600/)
    },
  )
})

describe('one verified e-mail with accounts in several organizations', () => {
  it('asks which, then links and signs in the chosen one', async () => {
    const email = 'both@multi.example'
    const input = { email, name: 'Both', role: 'member', password: 'correct horse battery' }
    await createUser(world.base.store, { ...input, org: world.acme.orgId })
    const inGlobex = await createUser(world.base.store, { ...input, org: world.globex.orgId })
    const agent = newAgent(world)
    // The command-line client serves every organization: its sign-in may end in either.
    const { url } = await authorizationRequest(world, { id: CLI_CLIENT_ID, secret: undefined })
    const { response } = await throughProvider(agent, url, 'corp', email.toUpperCase())
    expect(response.status).toBe(200)
    const page = await response.text()
    expect(page).toContain('Choose an organization')
    const chosen = await agent.submit(page, 'choose', { account: inGlobex.id })
    expect(chosen.status).toBe(303)
    expect((await world.base.store.signIn.findIdentity('corp', email.toUpperCase()))?.userId).toBe(
      inGlobex.id,
    )
  })
})
