/**
 * `node`, `nodes` and `search` as a GraphQL client library sees them: urql's core client (queries
 * sent as GET, mutations as POST, documents parsed by urql itself) against the compiled
 * `api-server` of `npm run build`, started with no checkout around it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Client, fetchExchange, gql } from '@urql/core'
import { type ServeProcess, startServe } from '../admin/run.ts'
import { buildExecutables, execCompiled } from '../support/compiled.ts'
import { clientToken } from '../support/tokens.ts'
import type { Loose } from './support.ts'

let dir: string
let bin: string
let server: ServeProcess
let acme: Client
let globex: Client
const ids: Record<string, string> = {}

/** Runs a compiled executable with no checkout around it; its standard output, or it fails. */
async function exec(argv: string[]): Promise<string> {
  const run = await execCompiled(argv, dir)
  if (run.status !== 0) throw new Error(`${argv.join(' ')} failed (${run.status}): ${run.stderr}`)
  return run.stdout
}

/** An organization with a confidential client, and an urql client holding that client's token. */
async function tenant(db: string, name: string): Promise<Client> {
  const admin = (...args: string[]) => exec([join(bin, 'api-server'), '--db', db, '--json', ...args])
  const org = JSON.parse(await admin('org', 'create', '--name', name)).id
  const client = JSON.parse(await admin('client', 'create', '--name', `${name} ci`, '--org', org))
  const token = await clientToken(server.url, { id: client.client_id, secret: client.client_secret })
  return new Client({
    url: `${server.url}/graphql`,
    exchanges: [fetchExchange],
    preferGetMethod: true,
    fetchOptions: () => ({ headers: { Authorization: `Bearer ${token}` } }),
  })
}

async function mutate(client: Client, document: string, variables: Record<string, unknown>): Promise<Loose> {
  const result = await client.mutation(gql(document), variables).toPromise()
  if (result.error) throw result.error
  return result.data
}

beforeAll(async () => {
  ;({ dir, bin } = buildExecutables('api-urql-'))
  const db = join(dir, 'api.db')
  await exec([join(bin, 'api-server'), '--db', db, 'migrate'])
  server = await startServe(['--port', '0', '--db', db], { command: [join(bin, 'api-server')], cwd: dir })
  acme = await tenant(db, 'Acme')
  globex = await tenant(db, 'Globex')
  const user = await mutate(acme, 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', {
    input: { name: 'Zephyr Ann', email: 'ann@example.com' },
  })
  ids.user = user.createUser.id
  const product = await mutate(
    acme,
    'mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }',
    { input: { name: 'Zephyr mug', sku: 'MUG-1', price: 1299, currency: 'EUR' } },
  )
  ids.product = product.createProduct.id
  const order = await mutate(
    acme,
    'mutation($input: CreateOrderInput!) { createOrder(input: $input) { id } }',
    {
      input: { userId: ids.user, amount: 2500, currency: 'EUR', status: 'paid' },
    },
  )
  ids.order = order.createOrder.id
  const foreign = await mutate(
    globex,
    'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }',
    {
      input: { name: 'Zephyr Bob', email: 'bob@example.com' },
    },
  )
  ids.foreign = foreign.createUser.id
}, 120_000)

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0)
  rmSync(dir, { recursive: true, force: true })
})

describe('urql against the compiled api-server', () => {
  it('fetches node with a fragment on its concrete type', async () => {
    const result = await acme
      .query(
        gql`query Node($id: ID!) { node(id: $id) { __typename id ... on Order { status amount user { name } } } }`,
        { id: ids.order },
      )
      .toPromise()
    expect(result.error).toBeUndefined()
    expect(result.data.node).toEqual({
      __typename: 'Order',
      id: ids.order,
      status: 'paid',
      amount: 2500,
      user: { name: 'Zephyr Ann' },
    })
  })

  it('fetches nodes of several types through fragments, in the order asked', async () => {
    const result = await acme
      .query(
        gql`
          fragment OrderFields on Order { status }
          query Nodes($ids: [ID!]!) {
            nodes(ids: $ids) { __typename id ...OrderFields ... on User { name } ... on Product { sku } }
          }
        `,
        { ids: [ids.product, ids.order, ids.user] },
      )
      .toPromise()
    expect(result.error).toBeUndefined()
    expect(result.data.nodes).toEqual([
      { __typename: 'Product', id: ids.product, sku: 'MUG-1' },
      { __typename: 'Order', id: ids.order, status: 'paid' },
      { __typename: 'User', id: ids.user, name: 'Zephyr Ann' },
    ])
  })

  it("gives null and FORBIDDEN for another organization's id", async () => {
    const result = await acme
      .query(gql`query Node($id: ID!) { node(id: $id) { id } }`, { id: ids.foreign })
      .toPromise()
    expect(result.data).toEqual({ node: null })
    expect(result.error?.graphQLErrors.map((e) => [e.path, e.extensions.code])).toEqual([
      [['node'], 'FORBIDDEN'],
    ])
  })

  it('searches with __typename on the union and pages through after', async () => {
    const search = gql`
      query Search($q: String!, $after: String) {
        search(q: $q, first: 1, after: $after) {
          nodes { __typename ... on User { name } ... on Product { name } }
          pageInfo { hasNextPage endCursor }
        }
      }
    `
    const pages: Loose[] = []
    let after: string | null = null
    do {
      const result: Loose = await acme.query(search, { q: 'zephyr', after }).toPromise()
      expect(result.error).toBeUndefined()
      pages.push(...result.data.search.nodes)
      after = result.data.search.pageInfo.hasNextPage ? result.data.search.pageInfo.endCursor : null
    } while (after !== null)
    // Newest first; Globex's Zephyr Bob is not Acme's to find.
    expect(pages).toEqual([
      { __typename: 'Product', name: 'Zephyr mug' },
      { __typename: 'User', name: 'Zephyr Ann' },
    ])
  })

  it('sent the queries as GET and the mutations as POST (the access log of the server)', () => {
    const requests = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.path === '/graphql')
    expect(new Set(requests.map((r) => `${r.method} ${r.status}`))).toEqual(new Set(['GET 200', 'POST 200']))
  })
})
