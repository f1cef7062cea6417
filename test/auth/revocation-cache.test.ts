import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeJwt } from 'jose'
import { OTHERS_POLL_MS } from '../../server/store/change-stamp.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe('a revoked access token', () => {
  it('is refused within OTHERS_POLL_MS when another process revokes it', async () => {
    const acme = await server.tenant()
    // Two reads, so the revocation answer ("not revoked") is cached.
    expect((await acme.fetch('/api/v1/orders')).status).toBe(200)
    expect((await acme.fetch('/api/v1/orders')).status).toBe(200)
    const { jti, exp, org_id } = decodeJwt(acme.token) as { jti: string; exp: number; org_id: string }
    // server.db is a second connection to the same SQLite file, as another instance has.
    await server.store.revocations.revoke(jti, org_id, exp * 1000, Date.now())
    await Bun.sleep(OTHERS_POLL_MS + 20)
    const refused = await acme.fetch('/api/v1/orders')
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token')
  })

  it('is refused on the next request when this server revokes it', async () => {
    const acme = await server.tenant()
    expect((await acme.fetch('/api/v1/orders')).status).toBe(200)
    const revoke = await server.fetch('/oauth/revoke', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${acme.clientId}:${acme.clientSecret}`)}`,
      },
      body: new URLSearchParams({ token: acme.token }).toString(),
    })
    expect(revoke.status).toBe(200)
    expect((await acme.fetch('/api/v1/orders')).status).toBe(401)
  })
})
