import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GRAPHQL_LIMITS } from '../../server/graphql/limits.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { expectGraphQLError, graphql } from './support.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

const nest = (levels: number) =>
  `{ orders(first: 1) { nodes { ${'lineItems(first: 1) { nodes { order { '.repeat(levels)}id${' } } }'.repeat(levels)} } } }`

const aliases = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: users { totalCount }`).join(' ')} }`

describe('GraphQL limits (documented in docs/graphql.md)', () => {
  const rejected: [string, string, RegExp][] = [
    ['depth', nest(3), new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth}`)],
    ['aliases', aliases(GRAPHQL_LIMITS.maxAliases + 1), /aliases/i],
    ['tokens', `{ ${'__typename '.repeat(GRAPHQL_LIMITS.maxTokens)} }`, /Token limit/],
    [
      'directives',
      `{ ${'... @skip(if: false) { __typename } '.repeat(GRAPHQL_LIMITS.maxDirectives + 1)}}`,
      /directives/i,
    ],
    [
      'records (a page size given as a variable counts as the maximum)',
      'query($n: Int) { users(first: $n) { nodes { addresses(first: $n) { nodes { id } } } } }',
      /may return up to 10100 records; the limit is 10000/,
    ],
    [
      'cost',
      '{ orders(first: 100) { nodes { lineItems(first: 90) { nodes { id quantity unitPrice product { id name sku price } order { id amount } } } } } }',
      /Cost limit of 100000 exceeded/i,
    ],
  ]
  it.each(rejected)(
    'rejects an operation over the %s limit before it runs (400, BAD_USER_INPUT)',
    async (_, query, message) => {
      const sent = await graphql(server, acme, query)
      expect(sent.status).toBe(400)
      expect(sent.body.data).toBeUndefined()
      const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT')
      expect(error.message).toMatch(message)
      expect(error.message).not.toStartWith('Syntax Error: Query')
    },
  )

  it('accepts an operation within every limit', async () => {
    const sent = await graphql(
      server,
      acme,
      `${nest(1).slice(0, -1)} ${aliases(GRAPHQL_LIMITS.maxAliases - 1).slice(1)}`,
    )
    expect(sent.body.errors).toBeUndefined()
    expect(sent.status).toBe(200)
  })

  it('allows introspection by default (development)', async () => {
    const sent = await graphql(server, acme, '{ __schema { queryType { name } } }')
    expect(sent.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } })
  })
})

describe('api-server serve --production', () => {
  let dir: string
  let production: RunningServer
  let token: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'api-graphql-production-'))
    production = await serve({ host: '127.0.0.1', port: 0, db: join(dir, 'api.db'), production: true })
  })
  afterAll(async () => {
    await production.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const post = (query: string) =>
    fetch(`${production.url}/graphql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ query }),
    })

  it('refuses introspection, hides field suggestions and serves no GraphiQL page', async () => {
    token = 'none'
    for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Order") { name } }']) {
      const response = await post(query)
      expect(response.status).toBe(400)
      const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] }
      expect(body.errors[0]!.message).toContain('introspection')
      expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT')
    }
    const typo = (await (await post('{ userz { totalCount } }')).json()) as { errors: { message: string }[] }
    expect(typo.errors[0]!.message).not.toContain('Did you mean')
    const page = await fetch(`${production.url}/graphql`, { headers: { Accept: 'text/html' } })
    expect(await page.text()).not.toContain('GraphiQL')
    expect((await post('{ __typename }')).status).toBe(200)
  })
})
