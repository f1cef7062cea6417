import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { expectError } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { JSONPATH, query, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  await seedOrders(acme)
})
afterAll(() => server.stop())

/** Valid queries, blank space inside them included (RFC 9535 allows it between tokens). */
const VALID = [
  "$[?@.status == 'paid']",
  "$[ ?@.status == 'paid' ]",
  '$[?@.amount >= 250 && @.currency != "EUR"].id',
  '$[*].status',
  '$[0]',
  '$..currency',
  "$[?@['status'] == 'paid']['id', 'amount']",
]

describe('QUERY with application/jsonpath: blank space around the query (RFC 9535 §2.1.1)', () => {
  it.each([
    ['a leading space (compliance suite: "basic, no leading whitespace")', ' $[0]'],
    ['a trailing space (compliance suite: "basic, no trailing whitespace")', '$[0] '],
    ['a leading tab', "\t$[?@.status == 'paid']"],
    ['a trailing newline, as a file sent with --data-binary has', "$[?@.status == 'paid']\n"],
    ['a trailing CRLF', "$[?@.status == 'paid']\r\n"],
    ['a leading newline', '\n$..currency'],
  ])('answers 400 for %s, with a detail on body', async (_, body) => {
    const error = await expectError(await query(acme, '/api/v1/orders', JSONPATH, body), 400, 'BAD_REQUEST', [
      'body',
    ])
    expect(error.error.details[0]!.message).toContain('whitespace')
  })

  it('answers 400 for any valid query with blank space added before or after it (fast-check)', async () => {
    const blank = fc
      .array(fc.constantFrom(' ', '\t', '\n', '\r'), { minLength: 1, maxLength: 3 })
      .map((chars) => chars.join(''))
    const where = fc.constantFrom('before', 'after', 'both')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...VALID), blank, where, async (path, space, at) => {
        const body = `${at === 'after' ? '' : space}${path}${at === 'before' ? '' : space}`
        const response = await query(acme, '/api/v1/orders', JSONPATH, body)
        expect({ body, status: response.status }).toEqual({ body, status: 400 })
        expect((await query(acme, '/api/v1/orders', JSONPATH, path)).status).toBe(200)
      }),
      { numRuns: 60 },
    )
  })
})
