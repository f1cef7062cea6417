/**
 * The action `revoke` and DELETE of `/api/v2/oauth-clients` (docs/oauth.md, "OAuth clients as a
 * resource"): a token issued before is refused at once (401 on the API, inactive at
 * /oauth/introspect), the secret gets no new token, and a revoked client changes no more but can be
 * deleted. On two replicas: replicas.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'
import { type Client, clientsOf } from './support.ts'

let server: TestServer
let tenant: Tenant
let clients: ReturnType<typeof clientsOf>

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  clients = clientsOf(server, tenant)
})
afterAll(async () => await server.stop())

describe('revoke and delete', () => {
  it('revoke ends a token issued before at once, and refuses changes after', async () => {
    const client = await clients.create({ name: 'to revoke' })
    const token = await clientToken(server.url, { id: client.id, secret: client.secret! })
    expect(await clients.apiStatus(token)).toBe(200)
    const revoked = await clients.action(client.id, 'revoke')
    expect(revoked.status).toBe(200)
    const body = (await revoked.json()) as Client
    expect(typeof body.revokedAt).toBe('string')
    expect(body.secret).toBeUndefined()
    expect(await clients.apiStatus(token)).toBe(401)
    expect(await clients.introspect(token)).toBe(false)
    expect(await clients.tokenStatus(client.id, client.secret!)).toBe(401)

    const events = (await (await tenant.fetch(`/api/v2/events?resource_id=${client.id}`)).json()) as {
      data: { type: string; data: Client }[]
    }
    expect(events.data.map((e) => e.type)).toEqual(['oauth_client.revoked', 'oauth_client.created'])
    expect(events.data[0]!.data.revokedAt).toBe(body.revokedAt)

    const again = await clients.action(client.id, 'revoke')
    expect(again.status).toBe(409)
    const patch = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, {
      method: 'PATCH',
      json: { name: 'y' },
    })
    expect(patch.status).toBe(409)
    expect(
      ((await patch.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field,
    ).toBe('revokedAt')
    const revokedOnes = await tenant.fetch('/api/v2/oauth-clients?revoked_at_gte=2000-01-01&per_page=100')
    expect(((await revokedOnes.json()) as { data: Client[] }).data.map((c) => c.id)).toEqual([client.id])
    const live = await tenant.fetch('/api/v2/oauth-clients', {
      method: 'QUERY',
      json: { filter: 'revoked_at IS NULL', limit: 100 },
    })
    expect(live.status).toBe(200)
    const liveIds = ((await live.json()) as { data: Client[] }).data.map((c) => c.id)
    expect(liveIds).not.toContain(client.id)
    expect(liveIds).toContain(tenant.clientId)
    const removed = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, { method: 'DELETE' })
    expect(removed.status).toBe(204)
  })

  it('DELETE removes the client and its tokens stop working', async () => {
    const client = await clients.create({ name: 'to delete' })
    const token = await clientToken(server.url, { id: client.id, secret: client.secret! })
    expect(await clients.apiStatus(token)).toBe(200)
    const removed = await tenant.fetch(`/api/v2/oauth-clients/${client.id}`, { method: 'DELETE' })
    expect(removed.status).toBe(204)
    expect(await clients.apiStatus(token)).toBe(401)
    expect(await clients.tokenStatus(client.id, client.secret!)).toBe(401)
    expect((await tenant.fetch(`/api/v2/oauth-clients/${client.id}`)).status).toBe(404)
  })
})
