import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { enrolTotp, passwordOnAccount } from '../signin/support.ts'
import { authorizationRequest, type IdpWorld, newAgent, startIdpWorld, throughProvider } from './support.ts'
import { upstreamSignIn } from './upstream.ts'

let world: IdpWorld
beforeAll(async () => {
  world = await startIdpWorld()
})
afterAll(() => world?.stop())

const eventTypes = async (userId: string) =>
  (
    await world.base.sql.all<{ type: string; data: string }>(
      'SELECT type, data FROM events WHERE resource_id = ? ORDER BY id',
      [userId],
    )
  ).map((e) => e.type)

/** Signs `email` in on /account, then links the upstream's `login` from there. */
async function linkFromAccount(email: string, login: string) {
  const agent = newAgent(world)
  expect(await passwordOnAccount(agent, email)).toBe('/account')
  const page = await (await agent.get('/account')).text()
  expect(page).toContain('<a class="button" href="/login/corp?link=1">Link Corp SSO</a>')
  const start = await agent.get('/login/corp?link=1')
  expect(start.status).toBe(303)
  const callback = await upstreamSignIn(agent, start.headers.get('location')!, login)
  return { agent, response: await agent.get(callback) }
}

describe('linking an outside identity from /account', () => {
  it('links the identity to the signed-in user, whatever e-mail the provider gives, and unlinks it', async () => {
    const { agent, response } = await linkFromAccount(world.acme.admin.email, 'acme-admin-at-corp')
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/account?notice=identity-linked')
    expect((await world.base.store.signIn.findIdentity('corp', 'acme-admin-at-corp'))?.userId).toBe(
      world.acme.admin.id,
    )
    const page = await (await agent.get('/account?notice=identity-linked')).text()
    expect(page).toContain('Unlink Corp SSO')
    expect(await eventTypes(world.acme.admin.id)).toContain('user.identity_linked')
    const unlinked = await agent.submit(page, 'identity-unlink')
    expect(unlinked.status).toBe(303)
    expect(await world.base.store.signIn.findIdentity('corp', 'acme-admin-at-corp')).toBeNull()
    expect(await eventTypes(world.acme.admin.id)).toContain('user.identity_unlinked')
  })

  it('refuses an identity linked to someone else', async () => {
    await linkFromAccount(world.globex.admin.email, 'shared-at-corp')
    const { response } = await linkFromAccount(world.acme.viewer.email, 'shared-at-corp')
    expect(response.status).toBe(409)
    expect(await response.text()).toContain('linked to another account')
    expect((await world.base.store.signIn.findIdentity('corp', 'shared-at-corp'))?.userId).toBe(
      world.globex.admin.id,
    )
  })

  it('needs the login cookie: signed out, /login/corp?link=1 goes to /account', async () => {
    const response = await newAgent(world).get('/login/corp?link=1')
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/account')
  })
})

describe('an outside sign-in and the second factor', () => {
  it('asks a user with an authenticator app for the code after the provider, as after a password', async () => {
    await enrolTotp(world.server.baseUrl, world.globex.member.email)
    const agent = newAgent(world)
    const { url } = await authorizationRequest(world, world.globexClient)
    const { response } = await throughProvider(agent, url, 'corp', world.globex.member.email)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toStartWith('/login/verify')
    expect(agent.cookies.has('oauth_login')).toBe(false)
  })
})
