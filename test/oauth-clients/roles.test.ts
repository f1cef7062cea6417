/**
 * Only an admin's tokens carry `read:oauth-clients` and `write:oauth-clients`: a member's and a
 * viewer's never do, whatever they ask for, and so get 403 from the collection. A
 * client-credentials token carries them only when its client was given them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { codeFlow, discover, orgWithUsers, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

const REDIRECT = 'http://127.0.0.1:6000/callback'
const ASKED = 'read:oauth-clients write:oauth-clients read:products write:products'

let server: TestServer
let users: Awaited<ReturnType<typeof orgWithUsers>>
let app: { id: string }

beforeAll(async () => {
  server = await startTestServer()
  users = await orgWithUsers(server, 'Roles')
  app = await registerClient(server, {
    orgId: users.orgId,
    public: true,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
  })
})
afterAll(async () => await server.stop())

const list = (token: string) =>
  fetch(`${server.url}/api/v2/oauth-clients`, { headers: { Authorization: `Bearer ${token}` } })

describe('a user token', () => {
  it.each([
    { role: 'admin', scopes: ['read:oauth-clients', 'write:oauth-clients'], status: 200 },
    { role: 'member', scopes: [], status: 403 },
    { role: 'viewer', scopes: [], status: 403 },
  ] as const)(
    "the $role's token carries $scopes of the clients' scopes: GET answers $status",
    async ({ role, scopes, status }) => {
      const config = await discover(server, app.id)
      const tokens = await codeFlow(server, config, REDIRECT, users[role].email, { scope: ASKED })
      const granted = (tokens.scope ?? '').split(' ')
      expect(granted.filter((s) => s.endsWith(':oauth-clients'))).toEqual([...scopes])
      expect(granted).toContain('read:products')
      const response = await list(tokens.access_token)
      expect(response.status).toBe(status)
      if (status === 403) {
        const { error } = (await response.json()) as { error: { code: string } }
        expect(error.code).toBe('FORBIDDEN')
      } else await response.body?.cancel()
    },
  )
})

describe('a client-credentials token', () => {
  it('carries the scopes only when its client was given them', async () => {
    const narrow = await registerClient(server, { orgId: users.orgId, scope: ['read:products'] })
    const token = await clientToken(server.url, { id: narrow.id, secret: narrow.secret! })
    expect((await list(token)).status).toBe(403)
    const wide = await registerClient(server, { orgId: users.orgId, scope: ['read:oauth-clients'] })
    const allowed = await clientToken(server.url, { id: wide.id, secret: wide.secret! })
    const response = await list(allowed)
    expect(response.status).toBe(200)
    const names = ((await response.json()) as { data: { id: string }[] }).data.map((c) => c.id)
    expect(names).toEqual(expect.arrayContaining([app.id, narrow.id, wide.id]))
  })
})
