import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { expectAllow, expectError } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { ACCEPT_QUERY, FORM, JSON_TYPE, JSONPATH, query, SQL, seedOrders } from './support.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await seedOrders(acme)).userId
})
afterAll(() => server.stop())

describe('QUERY: 400 when the body does not match its Content-Type, or has none', () => {
  const cases: { name: string; type: string | null; body: string; field: string }[] = [
    { name: 'no Content-Type', type: null, body: 'status=paid', field: 'Content-Type' },
    { name: 'JSON that does not parse', type: JSON_TYPE, body: '{"status": ', field: 'body' },
    { name: 'SQL that does not parse', type: SQL, body: 'SELEC * FROM orders', field: 'body' },
    {
      name: 'an unterminated SQL string',
      type: SQL,
      body: "SELECT * FROM orders WHERE status = 'paid",
      field: 'body',
    },
    {
      name: 'unbalanced SQL parentheses',
      type: SQL,
      body: 'SELECT * FROM orders WHERE (amount = 1',
      field: 'body',
    },
    { name: 'an empty SQL body', type: SQL, body: '  ', field: 'body' },
    { name: 'JSONPath that does not parse', type: JSONPATH, body: "$[?@.status == 'paid'", field: 'body' },
    {
      name: 'JSONPath that is not RFC 9535 (a script)',
      type: JSONPATH,
      body: '$[(@.length-1)]',
      field: 'body',
    },
    { name: 'a form body with raw spaces', type: FORM, body: 'status = paid', field: 'body' },
    { name: 'a form body with a broken escape', type: FORM, body: 'status=%zz', field: 'body' },
  ]
  for (const c of cases) {
    it(`${c.name}: 400 with a detail on ${c.field}`, async () => {
      await expectError(await query(acme, '/api/v1/orders', c.type, c.body), 400, 'BAD_REQUEST', [c.field])
    })
  }

  it('400 for a body that is not UTF-8', async () => {
    const response = await acme.fetch('/api/v1/orders', {
      method: 'QUERY',
      headers: { 'Content-Type': SQL },
      body: new Uint8Array([0x53, 0x45, 0xff, 0xfe]),
    })
    await expectError(response, 400, 'BAD_REQUEST', ['body'])
  })

  it('400 naming a URL parameter: the body is the query (only JSONPath takes ?limit)', async () => {
    await expectError(await query(acme, '/api/v1/orders?status=paid', FORM, 'limit=1'), 400, 'BAD_REQUEST', [
      'status',
    ])
    await expectError(await query(acme, '/api/v1/orders?limit=0', JSONPATH, '$[*]'), 400, 'BAD_REQUEST', [
      'limit',
    ])
    expect((await query(acme, '/api/v1/orders?limit=1', JSONPATH, '$[*]')).status).toBe(200)
  })
})

describe('QUERY: 415 for a query format the resource does not take', () => {
  const types = [
    'text/plain',
    'application/xslt+xml',
    'application/graphql',
    'application/sql; charset=latin1',
  ]
  for (const type of types) {
    it(`${type}: 415 with Accept-Query listing the four formats`, async () => {
      const response = await query(acme, '/api/v1/orders', type, 'x')
      await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', ['Content-Type'])
      expect(response.headers.get('accept-query')).toBe(ACCEPT_QUERY)
    })
  }

  it('415 for a compressed body (no content coding is read)', async () => {
    const response = await query(acme, '/api/v1/orders', FORM, 'limit=1', { 'Content-Encoding': 'gzip' })
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })

  it('accepts parameters and any case in the media type', async () => {
    expect(
      (await query(acme, '/api/v1/orders', 'Application/SQL; charset=utf-8', 'SELECT * FROM orders')).status,
    ).toBe(200)
  })
})

describe('QUERY: 413 for a body over 64 KiB', () => {
  it('answers 413 before parsing', async () => {
    const body = `status=paid&${'x'.repeat(70 * 1024)}`
    await expectError(await query(acme, '/api/v1/orders', FORM, body), 413, 'PAYLOAD_TOO_LARGE', ['body'])
  })
})

describe('QUERY: 422 for a well-formed body that cannot be run', () => {
  const cases: { name: string; type: string; body: string; field: string; says: RegExp }[] = [
    {
      name: 'unknown form parameter',
      type: FORM,
      body: 'colour=red',
      field: 'colour',
      says: /not a parameter/,
    },
    {
      name: 'bad value in a form body',
      type: FORM,
      body: 'amount_gte=lots',
      field: 'amount_gte',
      says: /whole number/,
    },
    {
      name: 'limit out of range in JSON',
      type: JSON_TYPE,
      body: '{"limit": 500}',
      field: 'limit',
      says: /between 1 and 100/,
    },
    {
      name: 'a JSON value that is an object',
      type: JSON_TYPE,
      body: '{"status": {"$ne": 1}}',
      field: 'status',
      says: /must be/,
    },
    {
      name: 'a JSON body that is an array',
      type: JSON_TYPE,
      body: '["status"]',
      field: 'body',
      says: /JSON object/,
    },
    {
      name: 'a bad filter expression in JSON',
      type: JSON_TYPE,
      body: '{"filter": "nope = 1"}',
      field: 'filter',
      says: /unknown field/,
    },
    {
      name: 'unknown SQL column',
      type: SQL,
      body: 'SELECT * FROM orders WHERE colour = 1',
      field: 'body',
      says: /unknown column colour/,
    },
    {
      name: 'another table',
      type: SQL,
      body: 'SELECT * FROM users',
      field: 'body',
      says: /unknown table users/,
    },
    {
      name: 'a disallowed SQL construct',
      type: SQL,
      body: 'SELECT status, count(*) FROM orders GROUP BY status WINDOW w AS ()',
      field: 'body',
      says: /not allowed/,
    },
    {
      name: 'a JSONPath over a too-long path',
      type: JSONPATH,
      body: `$${'.a'.repeat(1100)}`,
      field: 'body',
      says: /longer than/,
    },
  ]
  for (const c of cases) {
    it(`${c.name}: 422 VALIDATION_ERROR with a detail on ${c.field}`, async () => {
      const body = await expectError(
        await query(acme, '/api/v1/orders', c.type, c.body),
        422,
        'VALIDATION_ERROR',
        [c.field],
      )
      expect(body.error.details[0]!.message).toMatch(c.says)
    })
  }
})

describe('QUERY on resources that do not support it', () => {
  it('405 with Allow on a singleton, after authentication', async () => {
    const response = await query(acme, `/api/v1/users/${userId}`, SQL, 'SELECT * FROM users')
    await expectError(response, 405, 'METHOD_NOT_ALLOWED')
    expectAllow(response, ['GET', 'HEAD', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'], 'QUERY')
    expect(response.headers.get('accept-query')).toBeNull()
  })

  it('401 without a token, before anything else', async () => {
    const response = await server.fetch('/api/v1/orders', { method: 'QUERY', body: 'x' })
    await expectError(response, 401, 'UNAUTHORIZED')
  })

  it('403 without the read scope of the collection, for every body type', async () => {
    const limited = await server.tenant({ scope: ['read:users'] })
    const bodies: [string, string][] = [
      [FORM, ''],
      [JSON_TYPE, '{}'],
      [SQL, 'SELECT * FROM orders'],
      [JSONPATH, '$[*]'],
    ]
    for (const [type, body] of bodies) {
      await expectError(await query(limited, '/api/v1/orders', type, body), 403, 'FORBIDDEN', ['scope'])
      await expectError(
        await query(
          limited,
          '/api/v1/search',
          type,
          type === SQL
            ? body
            : type === JSONPATH
              ? '$.orders[*]'
              : type === FORM
                ? 'collection=orders'
                : '{"collection":"orders"}',
        ),
        403,
        'FORBIDDEN',
        ['scope'],
      )
    }
  })
})

describe('OPTIONS, GET and HEAD tell a client what it may send', () => {
  const collections = ['/api/v1/orders', '/api/v1/search', '/api/v1/events', '/api/v1/line-items']
  for (const path of collections) {
    it(`OPTIONS ${path}: Allow lists QUERY, Accept-Query lists the four formats`, async () => {
      const response = await server.fetch(path, { method: 'OPTIONS' })
      expect(response.status).toBe(204)
      expectAllow(response, ['GET', 'HEAD', 'QUERY', 'OPTIONS'])
      expect(response.headers.get('accept-query')).toBe(ACCEPT_QUERY)
    })
  }

  it('OPTIONS on a singleton lists its methods without QUERY or Accept-Query', async () => {
    const response = await server.fetch(`/api/v1/users/${userId}`, { method: 'OPTIONS' })
    expectAllow(response, ['GET', 'DELETE'], 'QUERY')
    expect(response.headers.get('accept-query')).toBeNull()
  })

  it('GET and HEAD of collections and /search send Accept-Query', async () => {
    for (const path of ['/api/v1/orders', `/api/v1/users/${userId}/addresses`, '/api/v1/search?q=x']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await acme.fetch(path, { method })
        expect({ path, method, status: response.status }).toEqual({ path, method, status: 200 })
        expect(response.headers.get('accept-query')).toBe(ACCEPT_QUERY)
      }
    }
  })
})

describe('Conditional QUERY', () => {
  const body = "SELECT id, amount FROM orders WHERE status = 'paid'"

  it('answers 304 to If-None-Match with the ETag it gave, and 200 to another tag', async () => {
    const first = await query(acme, '/api/v1/orders', SQL, body)
    const tag = first.headers.get('etag')!
    expect(tag).toMatch(/^"[\w-]+"$/)
    const again = await query(acme, '/api/v1/orders', SQL, body, { 'If-None-Match': tag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(tag)
    expect((await query(acme, '/api/v1/orders', SQL, body, { 'If-None-Match': '"other"' })).status).toBe(200)
  })

  it('answers 304 to If-Modified-Since at or after Last-Modified, and 200 once the collection changes', async () => {
    const first = await query(acme, '/api/v1/orders', SQL, body)
    const lastModified = first.headers.get('last-modified')!
    expect(Date.parse(lastModified)).not.toBeNaN()
    expect(
      (await query(acme, '/api/v1/orders', SQL, body, { 'If-Modified-Since': lastModified })).status,
    ).toBe(304)
    await Bun.sleep(1100)
    await acme.fetch('/api/v1/orders', {
      method: 'POST',
      json: { userId, amount: 5, currency: 'EUR', status: 'paid' },
    })
    expect(
      (await query(acme, '/api/v1/orders', SQL, body, { 'If-Modified-Since': lastModified })).status,
    ).toBe(200)
  })

  it('marks responses private and varying with the token and the body type', async () => {
    const response = await query(acme, '/api/v1/orders', FORM, 'status=paid')
    expect(response.headers.get('cache-control')).toContain('private')
    const vary = (response.headers.get('vary') ?? '').split(',').map((v) => v.trim())
    expect(vary).toEqual(expect.arrayContaining(['Authorization', 'Content-Type']))
  })
})
