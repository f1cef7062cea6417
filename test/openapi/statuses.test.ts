import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { errorResponse } from '../../server/http/responses.ts'
import { VERSIONS } from '../../server/versions/versions.ts'
import { unavailable } from '../../shared/errors.ts'
import { createOrder } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Exchange, ResponseValidator } from './response-validator.ts'

/**
 * Every status the server can answer on a route is declared on its operations, so that a contract
 * checker finds none undeclared (docs/api.md, "The OpenAPI documents"): the edge's 413, 414, 429,
 * 500 and 503 and Bun's 431 everywhere, and 405 on every path of the version.
 */

type Json = Record<string, unknown>
const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch', 'query', 'x-query']
const FORM = 'application/x-www-form-urlencoded'

let server: TestServer
let acme: Tenant
let orderId: string
const docs = new Map<string, Json>()

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  orderId = (await createOrder(acme)).id
  for (const version of VERSIONS)
    docs.set(version.name, (await (await server.fetch(`${version.prefix}/openapi.json`)).json()) as Json)
})
afterAll(() => server.stop())

/** Sends a request and returns it as an exchange for the validator. */
async function exchange(method: string, target: string, init: RequestInit = {}): Promise<Exchange> {
  const response = await server.fetch(target, { method, ...init })
  return { method, target, status: response.status, headers: response.headers, body: await response.text() }
}

describe.each(VERSIONS.map((v) => [v.name, v.prefix] as const))('/api/%s/openapi.json', (name, prefix) => {
  it('lists 413, 414, 431, 500, 503, 429 (but on the health probes) on every operation, and 405 on the version’s', () => {
    const missing: string[] = []
    for (const [path, item] of Object.entries(docs.get(name)!.paths as Record<string, Json>)) {
      for (const method of OPERATIONS) {
        const operation = item[method] as { responses: Json } | undefined
        if (!operation) continue
        const expected = [
          413,
          414,
          431,
          500,
          503,
          ...(path === '/healthz' || path === '/readyz' ? [] : [429]),
          ...(path.startsWith(`${prefix}/`) ? [405] : []),
        ]
        for (const status of expected)
          if (!(String(status) in operation.responses)) missing.push(`${method} ${path} ${status}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('describes the answers the server really sends for them', async () => {
    const validator = new ResponseValidator(docs.get(name)!)
    const item = `${prefix}/orders/${orderId}`
    const big = { 'X-Big': 'x'.repeat(17 * 1024) }
    const sent: Exchange[] = [
      // Bun's own answer to headers over 16 KiB: no body, none of the service's headers.
      await exchange('GET', item, { headers: big }),
      await exchange('PATCH', item, { headers: big, body: '{}' }),
      await exchange('POST', '/oauth/token', { headers: { ...big, 'Content-Type': FORM }, body: 'x=1' }),
      // The edge reads Content-Length before routing, whatever the method.
      await exchange('DELETE', item, { body: 'x'.repeat(1024 * 1024 + 1) }),
      await exchange('DELETE', `${prefix}/orders?confirm=orders`, { body: 'x'.repeat(1024 * 1024 + 1) }),
    ]
    expect(sent.map((e) => e.status)).toEqual([431, 431, 431, 413, 413])
    // A server still starting answers every path so, before its edge (server/serve.ts).
    const starting = errorResponse(unavailable('The server is starting; try again in a moment.'))
    for (const [method, target] of [
      ['GET', item],
      ['QUERY', `${prefix}/orders`],
      ['GET', '/readyz'],
      ['POST', '/oauth/token'],
    ] as const) {
      sent.push({
        method,
        target,
        status: 503,
        headers: starting.headers,
        body: await starting.clone().text(),
      })
    }
    expect(sent.flatMap((e) => validator.check(e))).toEqual([])
  })

  it('describes the token endpoint’s 429 after failed client authentications', async () => {
    const validator = new ResponseValidator(docs.get(name)!)
    const wrong = { Authorization: `Basic ${btoa(`${acme.clientId}-${name}:wrong`)}`, 'Content-Type': FORM }
    let last: Exchange | undefined
    for (let i = 0; i < 11; i++)
      last = await exchange('POST', '/oauth/token', { headers: wrong, body: 'grant_type=client_credentials' })
    expect(last!.status).toBe(429)
    expect(validator.check(last!)).toEqual([])
  })
})
