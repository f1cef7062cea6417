import { afterAll, beforeAll, describe, expect, it, spyOn } from 'bun:test'
import { pluralField } from '../../server/graphql/names.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import {
  createLineItem,
  createOrder,
  createPost,
  createUser,
  type Entity,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { data, expectGraphQLError, graphql, scopedToken } from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let globex: Tenant
const foreign: Record<string, Entity> = {}

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
  const order = await createOrder(globex)
  const item = await createLineItem(globex, order.id)
  const post = await createPost(globex)
  const id = (value: unknown) => ({ id: String(value) })
  Object.assign(foreign, { users: id(order.userId), orders: order, 'line-items': item, posts: post })
  foreign.products = id(item.productId)
  await createOrder(acme)
})
afterAll(() => server.stop())

describe('organization scoping (the same as REST)', () => {
  it.each(Object.keys({ users: 1, orders: 1, 'line-items': 1, posts: 1, products: 1 }))(
    "answers FORBIDDEN for another organization's %s by id",
    async (name) => {
      const resource = SCHEMA.resources.find((r) => r.name === name)!
      const sent = await graphql(server, acme, `query($id: ID!) { ${resource.singular}(id: $id) { id } }`, {
        id: foreign[name]!.id,
      })
      expect(sent.body.data).toEqual({ [resource.singular]: null })
      expectGraphQLError(sent.body, 'FORBIDDEN')
    },
  )

  it.each(SCHEMA.resources.map((r) => [pluralField(r), r.name]))(
    "never lists another organization's records in %s",
    async (field, name) => {
      const got = await data(server, acme, `{ ${field}(first: 100) { nodes { id } } }`)
      const viaRest = await readJson<{ data: Entity[] }>(await acme.fetch(`/api/v1/${name}?limit=100`))
      const ids = got[field].nodes.map((n: Entity) => n.id)
      expect(ids).toEqual(viaRest.data.map((r) => r.id))
      for (const record of Object.values(foreign)) expect(ids).not.toContain(record.id)
    },
  )

  it("refuses to update or delete another organization's record", async () => {
    for (const query of [
      'mutation($id: ID!) { updateOrder(id: $id, input: {amount: 1}) { id } }',
      'mutation($id: ID!) { deleteOrder(id: $id) }',
    ]) {
      const sent = await graphql(server, acme, query, { id: foreign.orders!.id })
      expectGraphQLError(sent.body, 'FORBIDDEN')
    }
    const order = await readJson(await globex.fetch(`/api/v1/orders/${foreign.orders!.id}`))
    expect(order).toEqual(foreign.orders!)
  })
})

describe('scopes: read:* for queries, write:* for mutations', () => {
  it('answers FORBIDDEN naming the missing scope, and serves what the token may read', async () => {
    const owner = await server.tenant()
    const order = await createOrder(owner)
    const token = await scopedToken(server, owner, ['read:orders'])
    const sent = await graphql(server, null, '{ orders { nodes { id user { id } } } }', undefined, { token })
    expect(sent.status).toBe(200)
    expect(sent.body.data).toEqual({ orders: { nodes: [{ id: order.id, user: null }] } })
    const denied = { field: 'scope', message: 'requires read:users' }
    expect(sent.body.errors!.map((e) => [e.path, e.extensions?.code, e.extensions?.details])).toEqual([
      [['orders', 'nodes', 0, 'user'], 'FORBIDDEN', [denied]],
    ])
    const users = await graphql(server, null, '{ users { totalCount } }', undefined, { token })
    expect(users.body.data).toBeNull()
    expect(expectGraphQLError(users.body, 'FORBIDDEN').extensions?.details).toEqual([denied])
  })

  it('refuses a mutation to a token with only read scopes', async () => {
    const reader = await server.tenant({ scope: ['read:users'] })
    const sent = await graphql(
      server,
      reader,
      'mutation { createUser(input: {name: "A", email: "r@example.com"}) { id } }',
    )
    expectGraphQLError(sent.body, 'FORBIDDEN')
    expect(await server.sql.get("SELECT 1 FROM users WHERE email = 'r@example.com'")).toBeNull()
  })

  it('needs the child scope for nested connections', async () => {
    const owner = await server.tenant()
    await createOrder(owner)
    const token = await scopedToken(server, owner, ['read:orders'])
    const sent = await graphql(server, null, '{ orders { nodes { lineItems { totalCount } } } }', undefined, {
      token,
    })
    expect(sent.body.data).toBeNull()
    expectGraphQLError(sent.body, 'FORBIDDEN')
  })
})

describe('masked internal errors', () => {
  it('answers INTERNAL with no SQL or stack, and logs the cause', async () => {
    const logged = spyOn(console, 'error').mockImplementation(() => {})
    await createUser(acme)
    // The posts table goes away under the running server, as a damaged database would fail it.
    await server.sql.run('ALTER TABLE posts RENAME TO posts_moved_away')
    try {
      const sent = await graphql(server, acme, '{ users { totalCount } posts { nodes { id } } }')
      expect(sent.status).toBe(200)
      expect(sent.body.data).toBeNull()
      const error = expectGraphQLError(sent.body, 'INTERNAL')
      expect(error.path).toEqual(['posts'])
      expect(error.message).toBe('The server could not complete the request.')
      expect(JSON.stringify(sent.body)).not.toMatch(/posts_|table|relation|sqlite|postgres|SELECT/i)
      expect(String(logged.mock.calls.flat())).toContain('posts')
    } finally {
      await server.sql.run('ALTER TABLE posts_moved_away RENAME TO posts')
      logged.mockRestore()
    }
  })
})
