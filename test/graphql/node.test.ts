import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { typeName } from '../../server/graphql/names.ts'
import { createTypeKit } from '../../server/graphql/types.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import {
  createOrder,
  createUser,
  createWebhookEndpoint,
  type Entity,
  firstDelivery,
  listEvents,
  readJson,
} from '../rest/fixtures.ts'
import { fixtures } from '../support/example-values.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import {
  data,
  expectGraphQLError,
  type GraphQLBody,
  graphql,
  type Loose,
  scopedToken,
  statementsOf,
} from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let globex: Tenant
/** One record of every collection of acme, by collection name. */
const mine: Record<string, Entity> = {}
/** The records `search(q: "zephyr")` finds, oldest first. */
let found: Entity[]
let foreignOrder: Entity

/** A text field of `resource` that search reads and that takes any words, if it has one. */
const searchedText = (resource: (typeof SCHEMA.resources)[number]) =>
  resource.searchable.find((name) => {
    const d = resource.fields[name]!.declaration
    return d.type === 'text' && d.format === undefined && (d.max ?? 200) >= 20
  })

/** The collections with a record of acme's made from the declaration: the declared ones, users and OAuth clients. */
const MADE = SCHEMA.resources.filter((r) => !r.service || r.name === 'users' || r.name === 'oauth-clients')
/** The collections whose records `search(q: "zephyr")` finds. */
const SEARCHED = MADE.filter((r) => searchedText(r) !== undefined)

beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowHttp: true, pollMs: 25 } })
  acme = await server.tenant()
  globex = await server.tenant()
  const endpoint = await createWebhookEndpoint(acme)
  // One record of every declared collection (and users), made from the declaration in dependency
  // order, so what a record references or nests under is the record made before it; each
  // searchable one says "zephyr".
  const made = fixtures(SCHEMA, acme)
  found = []
  for (const resource of MADE) {
    const field = searchedText(resource)
    const record = await made.create(resource.name, field ? { [field]: `Zephyr ${resource.singular}` } : {})
    mine[resource.name] = record as Entity
    if (field) found.push(record as Entity)
  }
  const [event] = await listEvents(acme, 1)
  mine.events = event!
  const delivery = await firstDelivery(acme, endpoint.id)
  // Disabled, the endpoint is not followed: no worker statement falls into a count below.
  const disabled = await acme.fetch(`/api/v1/webhook-endpoints/${endpoint.id}`, {
    method: 'PATCH',
    json: { enabled: false },
  })
  Object.assign(mine, { 'webhook-endpoints': await readJson(disabled), deliveries: delivery })
  foreignOrder = await createOrder(globex, { amount: 7 })
})
afterAll(() => server.stop())

/** Each error's path and code, in the order of their paths (errors come in the order they settle). */
const errorsByPath = (body: GraphQLBody<unknown>) =>
  (body.errors ?? [])
    .map((e) => [e.path, e.extensions?.code])
    .sort((a, b) => JSON.stringify(a[0]).localeCompare(JSON.stringify(b[0])))

describe('interface Node and union SearchResult (introspection)', () => {
  it('shows Node implemented by every record type, and SearchResult of the searchable ones', async () => {
    const got = await data(
      server,
      acme,
      `{ node: __type(name: "Node") { kind fields { name } possibleTypes { name } }
         search: __type(name: "SearchResult") { kind possibleTypes { name } }
         query: __type(name: "Query") { fields { name args { name } type { name kind ofType { name } } } } }`,
    )
    expect(got.node.kind).toBe('INTERFACE')
    expect(got.node.fields).toEqual([{ name: 'id' }])
    expect(got.node.possibleTypes.map((t: Loose) => t.name).sort()).toEqual(
      SCHEMA.resources.map(typeName).sort(),
    )
    expect(got.search.kind).toBe('UNION')
    expect(got.search.possibleTypes.map((t: Loose) => t.name).sort()).toEqual(
      SCHEMA.resources
        .filter((r) => r.searchable.length > 0)
        .map(typeName)
        .sort(),
    )
    const field = (name: string) => got.query.fields.find((f: Loose) => f.name === name)
    expect(field('node')).toEqual({
      name: 'node',
      args: [{ name: 'id' }],
      type: { name: 'Node', kind: 'INTERFACE', ofType: null },
    })
    expect(field('nodes').type).toEqual({ name: null, kind: 'LIST', ofType: { name: 'Node' } })
    expect(field('search').args.map((a: Loose) => a.name)).toEqual(['q', 'first', 'after'])
  })
})

describe('node(id:)', () => {
  it.each(SCHEMA.resources.map((r) => [r.name, typeName(r)]))(
    'fetches a record of %s as a %s',
    async (name, type) => {
      const record = mine[name]!
      const got = await data(server, acme, 'query($id: ID!) { node(id: $id) { __typename id } }', {
        id: record.id,
      })
      expect(got.node).toEqual({ __typename: type, id: record.id })
    },
  )

  it("answers the concrete type's fields through a fragment, as the singular field does", async () => {
    const got = await data(
      server,
      acme,
      `query($id: ID!) { node(id: $id) { ... on Order { status amount user { name } } }
                        order(id: $id) { status amount user { name } } }`,
      { id: mine.orders!.id },
    )
    const { status, amount } = mine.orders!
    expect(got.node).toEqual({ status, amount, user: { name: mine.users!.name } })
    expect(got.node).toEqual(got.order)
  })

  it("answers null and FORBIDDEN for another organization's id, as order(id:) does", async () => {
    const query = 'query($id: ID!) { node(id: $id) { id } order(id: $id) { id } }'
    const sent = await graphql(server, acme, query, { id: foreignOrder.id })
    expect(sent.status).toBe(200)
    expect(sent.body.data).toEqual({ node: null, order: null })
    expect(errorsByPath(sent.body)).toEqual([
      [['node'], 'FORBIDDEN'],
      [['order'], 'FORBIDDEN'],
    ])
    expect(new Set(sent.body.errors!.map((e) => e.message)).size).toBe(1)
  })

  it.each([
    ['a well-formed id of no record', 'ord_01h455vb4pex5vsknk084sn02q'],
    ['an id of a prefix no collection has', 'zzz_01h455vb4pex5vsknk084sn02q'],
    ['a malformed id', 'not an id'],
    ['an empty id', ''],
  ])('answers null and NOT_FOUND for %s, as order(id:) does for a malformed one', async (_, id) => {
    const sent = await graphql(server, acme, 'query($id: ID!) { node(id: $id) { id } }', { id })
    expect(sent.body.data).toEqual({ node: null })
    expectGraphQLError(sent.body, 'NOT_FOUND')
  })

  it('needs the read scope of the id’s collection, as the singular field does', async () => {
    const token = await scopedToken(server, acme, ['read:orders'])
    const query = 'query($id: ID!) { node(id: $id) { id } }'
    const order = await graphql(server, null, query, { id: mine.orders!.id }, { token })
    expect(order.body).toEqual({ data: { node: { id: mine.orders!.id } } })
    const user = await graphql(server, null, query, { id: mine.users!.id }, { token })
    expect(user.body.data).toEqual({ node: null })
    const error = expectGraphQLError(user.body, 'FORBIDDEN', ['scope'])
    expect(error.extensions?.details).toEqual([{ field: 'scope', message: 'requires read:users' }])
  })

  it('answers UNAUTHENTICATED without a token, whatever the id', async () => {
    for (const id of [mine.orders!.id, 'not an id']) {
      const sent = await graphql(server, null, 'query($id: ID!) { node(id: $id) { id } }', { id })
      expect(sent.body.data).toEqual({ node: null })
      expectGraphQLError(sent.body, 'UNAUTHENTICATED')
    }
  })
})

describe('nodes(ids:)', () => {
  it('answers each id in place: records, and null with its own error for the ones that fail', async () => {
    const ids = [mine.orders!.id, mine.users!.id, foreignOrder.id, 'nope', mine.products!.id, mine.orders!.id]
    const sent = await graphql(
      server,
      acme,
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Order { status } ... on User { name } } }',
      { ids },
    )
    expect(sent.status).toBe(200)
    expect(sent.body.data).toEqual({
      nodes: [
        { __typename: 'Order', id: mine.orders!.id, status: 'pending' },
        { __typename: 'User', id: mine.users!.id, name: mine.users!.name },
        null,
        null,
        { __typename: 'Product', id: mine.products!.id },
        { __typename: 'Order', id: mine.orders!.id, status: 'pending' },
      ],
    })
    expect(errorsByPath(sent.body)).toEqual([
      [['nodes', 2], 'FORBIDDEN'],
      [['nodes', 3], 'NOT_FOUND'],
    ])
  })

  it('reads the ids of one collection in one statement', async () => {
    const orders = [mine.orders!, await createOrder(acme), await createOrder(acme)]
    const users = [mine.users!, await createUser(acme)]
    const ids = [...orders, ...users].map((r) => r.id).reverse()
    await data(server, acme, '{ __typename }') // warms the token cache: verification is not what is counted
    let got: Loose
    const statements = await statementsOf(server.sql, async () => {
      got = await data(server, acme, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids })
    })
    expect(got.nodes.map((n: Entity) => n.id)).toEqual(ids)
    expect(statements).toHaveLength(2)
    expect(statements.filter((sql) => /\borders\b/.test(sql))).toHaveLength(1)
    expect(statements.filter((sql) => /\busers\b/.test(sql))).toHaveLength(1)
  })

  it('answers FORBIDDEN for each id of a collection the token may not read, and the others', async () => {
    const token = await scopedToken(server, acme, ['read:orders'])
    const sent = await graphql(
      server,
      null,
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [mine.users!.id, mine.orders!.id, mine.users!.id] },
      { token },
    )
    expect(sent.body.data).toEqual({ nodes: [null, { id: mine.orders!.id }, null] })
    expect(errorsByPath(sent.body)).toEqual([
      [['nodes', 0], 'FORBIDDEN'],
      [['nodes', 2], 'FORBIDDEN'],
    ])
  })

  it('takes at most 100 ids, and counts them toward the records an operation may ask for', async () => {
    const many = await graphql(server, acme, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: Array.from({ length: 101 }, () => mine.orders!.id),
    })
    expect(many.body.data).toEqual({ nodes: null })
    expectGraphQLError(many.body, 'BAD_USER_INPUT', ['ids'])
    // 100 ids times 100 line items each is past the 10,000 records of docs/graphql.md.
    const deep = await graphql(
      server,
      acme,
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { lineItems(first: 100) { nodes { id } } } } }',
      { ids: [mine.orders!.id] },
    )
    expect(deep.status).toBe(400)
    expect(expectGraphQLError(deep.body, 'BAD_USER_INPUT').message).toContain('10000')
  })
})

describe('search(q:, first:, after:)', () => {
  const query = `query($q: String!, $first: Int, $after: String) {
    search(q: $q, first: $first, after: $after) {
      totalCount
      nodes { __typename ... on Node { id } }
      edges { cursor }
      pageInfo { hasNextPage endCursor }
    }
  }`
  // Newest first; hits created in the same millisecond follow by id, descending.
  const newestFirst = () =>
    [...found].sort((a, b) => byText(b.createdAt, a.createdAt) || byText(b.id, a.id)).map((r) => r.id)

  it('finds records of every searchable collection, newest first, as GET /api/v1/search does', async () => {
    const got = await data(server, acme, query, { q: 'zephyr' })
    expect(new Set(got.search.nodes.map((n: Loose) => n.__typename))).toEqual(new Set(SEARCHED.map(typeName)))
    expect(got.search.nodes.map((n: Loose) => n.id)).toEqual(newestFirst())
    expect(got.search.totalCount).toBe(found.length)
    expect(got.search.pageInfo).toEqual({
      hasNextPage: false,
      endCursor: got.search.edges[found.length - 1].cursor,
    })
    const rest = await readJson<Loose>(await acme.fetch('/api/v1/search?q=zephyr'))
    expect(rest.data.map((hit: Loose) => hit.record.id)).toEqual(newestFirst())
  })

  it('pages through after, with cursors that continue the same search over REST', async () => {
    const seen: string[] = []
    let after: string | null = null
    const pages = Math.ceil(found.length / 2)
    for (let i = 0; i < pages; i++) {
      const got: Loose = await data(server, acme, query, { q: 'zephyr', first: 2, after })
      expect(got.search.nodes).toHaveLength(Math.min(2, found.length - 2 * i))
      seen.push(...got.search.nodes.map((n: Loose) => n.id))
      expect(got.search.pageInfo.hasNextPage).toBe(i < pages - 1)
      if (after !== null) {
        const rest = await readJson<Loose>(
          await acme.fetch(`/api/v1/search?q=zephyr&limit=2&cursor=${after}`),
        )
        expect(rest.data.map((hit: Loose) => hit.record.id)).toEqual(got.search.nodes.map((n: Loose) => n.id))
      }
      after = got.search.pageInfo.endCursor
    }
    expect(seen).toEqual(newestFirst())
  })

  it('searches only the collections the token may read', async () => {
    const token = await scopedToken(server, acme, ['read:users', 'read:orders'])
    const sent = await graphql(server, null, query, { q: 'zephyr' }, { token })
    expect(sent.body.errors).toBeUndefined()
    expect((sent.body.data as Loose).search.nodes).toEqual([{ __typename: 'User', id: mine.users!.id }])
    const none = await scopedToken(server, acme, ['read:orders'])
    const refused = await graphql(server, null, query, { q: 'zephyr' }, { token: none })
    expect(refused.body.data).toBeNull()
    expectGraphQLError(refused.body, 'BAD_USER_INPUT', ['q'])
  })

  it("never finds another organization's records", async () => {
    await createUser(globex, { name: 'Zephyr Bob' })
    const got = await data(server, acme, query, { q: 'zephyr' })
    expect(got.search.nodes.map((n: Loose) => n.id)).toEqual(newestFirst())
  })

  it.each([
    ['an empty q', { q: ' ' }, 'q'],
    ['first: 0', { q: 'zephyr', first: 0 }, 'first'],
    ['first: 101', { q: 'zephyr', first: 101 }, 'first'],
    ['a cursor that is not one', { q: 'zephyr', after: 'garbage' }, 'after'],
  ])('answers BAD_USER_INPUT naming the argument for %s', async (_, variables, field) => {
    const sent = await graphql(server, acme, query, variables)
    expect(sent.body.data).toBeNull()
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', [field])
  })

  it('refuses a cursor of another search', async () => {
    const first = await data(server, acme, query, { q: 'zephyr', first: 1 })
    const sent = await graphql(server, acme, query, { q: 'mug', after: first.search.pageInfo.endCursor })
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['after'])
  })
})

const byText = (a: unknown, b: unknown) =>
  (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0

describe('ids as node reads them (properties)', () => {
  const kit = createTypeKit(SCHEMA.resources)
  const prefixes = new Set(SCHEMA.resources.map((r) => r.prefix))

  it('names the collection of every id a collection makes, and none for another prefix', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEMA.resources),
        fc.stringMatching(/^[a-z_]{0,10}$/),
        (resource, other) => {
          expect(kit.resourceOf(newId(resource.prefix))).toBe(resource)
          if (!prefixes.has(other)) expect(kit.resourceOf(newId(other))).toBeUndefined()
        },
      ),
      { numRuns: 500 },
    )
  })

  it('answers any string that is no record of the organization with null and NOT_FOUND, never INTERNAL', async () => {
    const known = fc.constantFrom(...prefixes).map((p) => `${p}_`)
    const id = fc.oneof(
      fc.string(),
      fc.tuple(known, fc.string()).map(([p, rest]) => p + rest),
    )
    await fc.assert(
      fc.asyncProperty(id, async (value) => {
        const sent = await graphql(server, acme, 'query($id: ID!) { node(id: $id) { id } }', { id: value })
        expect(sent.status).toBe(200)
        expect(sent.body.data).toEqual({ node: null })
        expectGraphQLError(sent.body, 'NOT_FOUND')
      }),
      { numRuns: 60 },
    )
  })
})
