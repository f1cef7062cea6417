import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_URL_LENGTH } from '../../server/http/limits.ts'
import { createUser, type ErrorBody } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme)).id
})
afterAll(() => server.stop())

const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error

/** `[[[...]]]` nested `depth` levels, as the value of a field. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('request bodies over 1 MiB', () => {
  it('are 413 PAYLOAD_TOO_LARGE by their Content-Length, before anything reads them', async () => {
    const body = JSON.stringify({ userId, note: 'x'.repeat(MAX_BODY_BYTES) })
    const response = await acme.fetch('/api/v2/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    })
    expect(response.status).toBe(413)
    expect((await errorOf(response)).code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('are 413 when chunked, after reading no more than the limit', async () => {
    let sent = 0
    const chunk = new Uint8Array(64 * 1024).fill(0x20)
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength
        // An endless body: the server must stop reading it.
        controller.enqueue(chunk)
      },
    })
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(413)
    expect((await errorOf(response)).code).toBe('PAYLOAD_TOO_LARGE')
    expect(sent).toBeLessThan(64 * MAX_BODY_BYTES)
  })

  it('a chunked body under the limit is read as usual', async () => {
    const text = JSON.stringify({ userId, amount: 5, currency: 'EUR' })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text.slice(0, 10)))
        controller.enqueue(new TextEncoder().encode(text.slice(10)))
        controller.close()
      },
    })
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(201)
  })

  it('apply to the token endpoint and GraphQL too', async () => {
    const big = 'a'.repeat(MAX_BODY_BYTES + 1)
    const token = await server.fetch('/oauth/token', { method: 'POST', body: big })
    expect(token.status).toBe(413)
    const graphql = await acme.fetch('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: big,
    })
    expect(graphql.status).toBe(413)
  })
})

describe('over-long URLs', () => {
  it(`a request target over ${MAX_URL_LENGTH} characters is 414 URI_TOO_LONG`, async () => {
    const response = await acme.fetch(`/api/v1/orders?q=${'a'.repeat(MAX_URL_LENGTH)}`)
    expect(response.status).toBe(414)
    expect((await errorOf(response)).code).toBe('URI_TOO_LONG')
  })

  it('one just under the limit is read (and here refused for its value, 400)', async () => {
    const path = '/api/v1/orders?q='
    const response = await acme.fetch(`${path}${'a'.repeat(MAX_URL_LENGTH - path.length)}`)
    expect(response.status).toBe(400)
  })
})

describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  const deep = (depth: number) => `{"userId": "${userId}", "amount": ${nested(depth - 1)}}`

  it('is 400 BAD_REQUEST naming body, in REST bodies', async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: deep(MAX_JSON_DEPTH + 1),
    })
    expect(response.status).toBe(400)
    const error = await errorOf(response)
    expect(error.code).toBe('BAD_REQUEST')
    expect(error.details[0]!.field).toBe('body')
  })

  it(`at ${MAX_JSON_DEPTH} levels it parses (and fails validation, 422)`, async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: deep(MAX_JSON_DEPTH),
    })
    expect(response.status).toBe(422)
  })

  it('brackets inside strings do not count', async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ userId, amount: 1, currency: 'EUR', status: '[[[['.repeat(20) }),
    })
    expect(response.status).toBe(422)
  })

  it('is 400 in QUERY JSON bodies and GraphQL requests too', async () => {
    const query = await acme.fetch('/api/v1/orders', {
      method: 'QUERY',
      headers: { 'Content-Type': 'application/json' },
      body: `{"status": ${nested(MAX_JSON_DEPTH + 1)}}`,
    })
    expect(query.status).toBe(400)
    const graphql = await acme.fetch('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"query": "{ __typename }", "variables": {"x": ${nested(MAX_JSON_DEPTH + 1)}}}`,
    })
    expect(graphql.status).toBe(400)
    expect((await errorOf(graphql)).code).toBe('BAD_REQUEST')
  })
})
