import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { auditServer } from 'graphql-http'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

describe('GraphQL over HTTP conformance (graphql-http auditServer)', () => {
  it('passes all 61 audits with no warning against the real server', async () => {
    const results = await auditServer({
      url: `${server.url}/graphql`,
      // Every request carries a valid token, as a real client's would.
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers)
        headers.set('Authorization', `Bearer ${acme.token}`)
        return fetch(input, { ...init, headers })
      },
    })
    const notOk = results
      .filter((r) => r.status !== 'ok')
      .map((r) => `${r.status} ${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`)
    expect(notOk).toEqual([])
    expect(results).toHaveLength(61)
  })
})
