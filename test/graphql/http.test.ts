import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectGraphQLError, GRAPHQL_RESPONSE, type GraphQLBody, graphql } from './support.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

const get = (query: string, accept = GRAPHQL_RESPONSE, extra = '') =>
  acme.fetch(`/graphql?query=${encodeURIComponent(query)}${extra}`, { headers: { Accept: accept } })

describe('POST /graphql', () => {
  it('runs a query with variables and operationName, answering application/graphql-response+json', async () => {
    const sent = await graphql(
      server,
      acme,
      'query A { a: __typename } query B($first: Int) { users(first: $first) { totalCount } }',
      { first: 5 },
      { operationName: 'B' },
    )
    expect(sent.status).toBe(200)
    expect(sent.contentType).toBe('application/graphql-response+json; charset=utf-8')
    expect(sent.body).toEqual({ data: { users: { totalCount: 0 } } })
  })

  it('answers application/json to clients that accept only that (or send no Accept)', async () => {
    for (const accept of ['application/json', '*/*']) {
      const sent = await graphql(server, acme, '{ __typename }', undefined, { accept })
      expect(sent.contentType).toBe('application/json; charset=utf-8')
      expect(sent.body).toEqual({ data: { __typename: 'Query' } })
    }
  })
})

describe('GraphQL status codes (contract)', () => {
  const cases: [string, string, string, number][] = [
    ['a syntax error', '{ users(', GRAPHQL_RESPONSE, 400],
    ['a syntax error', '{ users(', 'application/json', 200],
    ['a validation error', '{ users { nope } }', GRAPHQL_RESPONSE, 400],
    ['a validation error', '{ users { nope } }', 'application/json', 200],
  ]
  it.each(cases)(
    'answers %s under %s with %d, no data and BAD_USER_INPUT',
    async (_, query, accept, status) => {
      const sent = await graphql(server, acme, query, undefined, { accept })
      expect(sent.status).toBe(status)
      expect(sent.body.data).toBeUndefined()
      const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT')
      expect(error.locations?.[0]?.line).toBe(1)
    },
  )

  it('answers errors while executing with 200, errors and data null where nothing resolved', async () => {
    const sent = await graphql(server, acme, '{ users(first: 500) { totalCount } }')
    expect(sent.status).toBe(200)
    expect(sent.body.data).toBeNull()
    const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['first'])
    expect(error.path).toEqual(['users'])
    expect(error.locations).toEqual([{ line: 1, column: 3 }])
  })

  it('answers a request without a token with 200 and UNAUTHENTICATED on every root field', async () => {
    const sent = await graphql(server, null, '{ users { totalCount } orders { totalCount } }')
    expect(sent.status).toBe(200)
    expect(sent.body.data).toBeNull()
    expect(sent.body.errors?.map((e) => e.extensions?.code)).toContain('UNAUTHENTICATED')
  })

  it('answers an invalid token like a missing one', async () => {
    const sent = await graphql(server, null, '{ user(id: "usr_x") { id } }', undefined, {
      token: 'abc.def.ghi',
    })
    expect(sent.status).toBe(200)
    expect(sent.body.data).toEqual({ user: null })
    expectGraphQLError(sent.body, 'UNAUTHENTICATED')
  })
})

describe('GET /graphql', () => {
  it('runs queries from the query string, with variables', async () => {
    const response = await get(
      'query($n: Int) { users(first: $n) { totalCount } }',
      GRAPHQL_RESPONSE,
      `&variables=${encodeURIComponent('{"n":3}')}`,
    )
    expect(response.status).toBe(200)
    expect(((await response.json()) as GraphQLBody).data).toEqual({ users: { totalCount: 0 } })
  })

  it('refuses a mutation with 405 and Allow: POST, changing nothing', async () => {
    const mutation = 'mutation { createUser(input: {name: "A", email: "get@example.com"}) { id } }'
    const response = await get(mutation)
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    const body = (await response.json()) as GraphQLBody
    expectGraphQLError(body, 'BAD_USER_INPUT')
    const users = (await server.sql.get('SELECT count(*) AS n FROM users WHERE org_id = ?', acme.orgId)) as {
      n: number
    }
    expect(users.n).toBe(0)
  })

  it('answers a browser (Accept: text/html) with GraphiQL (test/graphql/graphiql.browser.test.ts)', async () => {
    const response = await acme.fetch('/graphql', { headers: { Accept: 'text/html' } })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('GraphiQL')
  })
})

describe('other methods on /graphql', () => {
  it('answers OPTIONS with 204 and Allow, without a token', async () => {
    const response = await server.fetch('/graphql', { method: 'OPTIONS' })
    expect(response.status).toBe(204)
    expect(response.headers.get('allow')).toBe('GET, POST, OPTIONS')
  })

  it.each(['PUT', 'PATCH', 'DELETE'])('answers %s with 405 and Allow', async (method) => {
    const response = await acme.fetch('/graphql', { method, json: { query: '{ __typename }' } })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, POST')
  })

  it('sends X-Content-Type-Options like every response', async () => {
    const sent = await graphql(server, acme, '{ __typename }')
    expect(sent.response.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
