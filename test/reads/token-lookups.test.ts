import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createOrder, readJson } from '../rest/fixtures.ts'
import { statementsOf } from '../support/backend.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

/** The statements that look the request's token up among the revoked ones. */
const revocationLookups = (statements: string[]) => statements.filter((s) => /oauth_revoked_tokens/.test(s))

describe('a known token after a write', () => {
  it('is looked up once per request, by the edge, and the route takes its answer', async () => {
    const order = await createOrder(acme)
    // The token is known now; the next write drops what was cached about it.
    expect((await acme.fetch(`/api/v1/orders/${order.id}`)).status).toBe(200)
    for (const path of [`/api/v1/orders/${order.id}`, '/api/v1/orders?limit=5']) {
      await createOrder(acme)
      let status = 0
      const statements = await statementsOf(server.sql, async () => {
        const response = await acme.fetch(path)
        status = response.status
        await readJson(response)
      })
      expect(status).toBe(200)
      expect(revocationLookups(statements)).toHaveLength(1)
    }
  })

  it('is refused at once after its revocation, also while its principal was cached', async () => {
    const other = await server.tenant()
    const order = await createOrder(other)
    expect((await other.fetch(`/api/v1/orders/${order.id}`)).status).toBe(200)
    const revoked = await server.fetch('/oauth/revoke', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${other.clientId}:${other.clientSecret}`)}`,
      },
      body: `token=${other.token}`,
    })
    expect(revoked.status).toBe(200)
    for (const path of [`/api/v1/orders/${order.id}`, '/api/v1/orders?limit=5'])
      expect((await other.fetch(path)).status).toBe(401)
  })
})
