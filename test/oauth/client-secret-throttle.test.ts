import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { expectOAuthError } from '../auth/oauth-assertions.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { basicAuth, postForm, registerClient } from './support.ts'

/** Failed client authentications are limited in memory, per instance: this file has its own server. */
let server: TestServer
let orgId: string

beforeAll(async () => {
  server = await startTestServer()
  orgId = (await server.store.orgs.create('Throttle')).id
})
afterAll(() => server.stop())

const FAILURES = 10

type Method = 'client_secret_basic' | 'client_secret_post'

/** A client-credentials token request authenticated by `method`. */
function tokenRequest(method: Method, id: string, secret: string, path = '/oauth/token') {
  const form: Record<string, string> =
    path === '/oauth/token' ? { grant_type: 'client_credentials' } : { token: 'x' }
  if (method === 'client_secret_basic')
    return postForm(server, path, form, { Authorization: basicAuth(id, secret) })
  return postForm(server, path, { ...form, client_id: id, client_secret: secret })
}

async function failTimes(method: Method, id: string, times = FAILURES) {
  for (let i = 0; i < times; i++)
    await expectOAuthError(await tokenRequest(method, id, `cs_wrong-${i}`), 401, 'invalid_client')
}

/** RFC 6585 §4: 429 with Retry-After; the OAuth error body of the token endpoint. */
async function expectLockedOut(response: Response) {
  const body = await expectOAuthError(response, 429, 'temporarily_unavailable')
  expect(Number(response.headers.get('retry-after'))).toBeWithin(890, 901)
  expect(body.error_description).toContain('Too many failed authentications')
}

describe('POST /oauth/token: client-secret guessing is throttled per client id', () => {
  const methods: Method[] = ['client_secret_basic', 'client_secret_post']
  it.each(methods)(
    'answers 429 temporarily_unavailable with Retry-After after 10 wrong secrets (%s), even for the right one',
    async (method) => {
      const client = await registerClient(server, { orgId })
      await failTimes(method, client.id)
      await expectLockedOut(await tokenRequest(method, client.id, client.secret!))
      // The other method, and the revocation and introspection endpoints, are locked out too.
      const other = method === 'client_secret_basic' ? 'client_secret_post' : 'client_secret_basic'
      await expectLockedOut(await tokenRequest(other, client.id, client.secret!))
      await expectLockedOut(await tokenRequest(method, client.id, client.secret!, '/oauth/revoke'))
      await expectLockedOut(await tokenRequest(method, client.id, client.secret!, '/oauth/introspect'))
    },
  )

  it('counts wrong secrets of both methods together; a success in between clears nothing', async () => {
    const client = await registerClient(server, { orgId })
    await failTimes('client_secret_basic', client.id, FAILURES / 2)
    await failTimes('client_secret_post', client.id, FAILURES / 2 - 1)
    expect((await tokenRequest('client_secret_post', client.id, client.secret!)).status).toBe(200)
    await failTimes('client_secret_basic', client.id, 1)
    await expectLockedOut(await tokenRequest('client_secret_basic', client.id, client.secret!))
  })

  it('counts attempts for an unknown client id by the id given', async () => {
    await failTimes('client_secret_basic', 'clt_nobody')
    await expectLockedOut(await tokenRequest('client_secret_basic', 'clt_nobody', 'cs_anything'))
  })

  it('counts made-up ids longer than any client id together, so they cannot fill memory', async () => {
    const long = (i: number) => `clt_${'x'.repeat(124)}${i}`
    for (let i = 0; i < FAILURES; i++) await failTimes('client_secret_post', long(i), 1)
    await expectLockedOut(await tokenRequest('client_secret_post', long(FAILURES), 'cs_anything'))
  })

  it("leaves other clients alone, and their successes do not clear the locked one's count", async () => {
    const locked = await registerClient(server, { orgId })
    const other = await registerClient(server, { orgId })
    await failTimes('client_secret_basic', locked.id)
    expect((await tokenRequest('client_secret_basic', other.id, other.secret!)).status).toBe(200)
    await expectLockedOut(await tokenRequest('client_secret_basic', locked.id, locked.secret!))
  })

  it('never throttles a public client identified by its id alone (it has no secret to guess)', async () => {
    await failTimes('client_secret_post', CLI_CLIENT_ID)
    await expectLockedOut(await tokenRequest('client_secret_post', CLI_CLIENT_ID, 'cs_guess'))
    const response = await postForm(server, '/oauth/device_authorization', { client_id: CLI_CLIENT_ID })
    expect(response.status).toBe(200)
  })
})
