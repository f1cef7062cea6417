import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { typeName } from '../../server/graphql/names.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createOrder, createPost, type Entity, readJson } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { data, expectGraphQLError, graphql } from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let globex: Tenant
let readOnly: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
  readOnly = await server.tenant({ scope: ['read:orders'] })
})
afterAll(() => server.stop())

const SHIP = 'mutation($id: ID!) { shipOrder(id: $id) { id status updatedAt } }'

async function paidOrder(): Promise<Entity> {
  const order = await createOrder(acme)
  await acme.fetch(`/api/v2/orders/${order.id}`, { method: 'PATCH', json: { status: 'paid' } })
  return order
}

async function eventTypes(id: string): Promise<string[]> {
  const page = await readJson<{ data: Entity[] }>(
    await acme.fetch(`/api/v2/events?resource_id=${id}&sort=created_at`),
  )
  return page.data.map((e) => e.type as string)
}

describe('GraphQL action mutations', () => {
  it('has a mutation per declared action, taking the id and returning the record', async () => {
    const schema = await data(
      server,
      acme,
      '{ __type(name: "Mutation") { fields { name args { name type { kind ofType { name } } } type { ofType { name } } } } }',
    )
    const fields = new Map(
      (schema.__type.fields as { name: string; args: unknown; type: { ofType: { name: string } } }[]).map(
        (f) => [f.name, f],
      ),
    )
    // Every action of every collection: `cancelOrder`, `rotateSecretWebhookEndpoint`.
    const declared = SCHEMA.resources.flatMap((r) =>
      r.actions.map((a) => [
        `${a.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}${typeName(r)}`,
        typeName(r),
      ]),
    )
    expect(declared.length).toBeGreaterThan(0)
    for (const [name, type] of declared) {
      expect(fields.get(name!)?.type.ofType.name).toBe(type)
      expect(fields.get(name!)?.args).toEqual([
        { name: 'id', type: { kind: 'NON_NULL', ofType: { name: 'ID' } } },
      ])
    }
  })

  it('cancelOrder(id:) cancels and records order.cancelled, as REST does', async () => {
    const order = await createOrder(acme)
    const result = await data(server, acme, 'mutation($id: ID!) { cancelOrder(id: $id) { id status } }', {
      id: order.id,
    })
    expect(result.cancelOrder).toEqual({ id: order.id, status: 'cancelled' })
    expect(await eventTypes(order.id)).toEqual(['order.created', 'order.cancelled'])
  })

  it('answers a state the action does not start from with BAD_USER_INPUT, reason CONFLICT, naming the state', async () => {
    const order = await createOrder(acme)
    const sent = await graphql(server, acme, SHIP, { id: order.id })
    expect(sent.status).toBe(200)
    expect(sent.body.data).toBeNull()
    const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['status'])
    expect(error.extensions?.reason).toBe('CONFLICT')
    expect(error.extensions?.details?.[0]?.message).toBe('is pending; ship needs paid')
    expect(await eventTypes(order.id)).toEqual(['order.created'])
  })

  it('ships once when two shipOrder mutations race', async () => {
    const order = await paidOrder()
    const [a, b] = await Promise.all([
      graphql(server, acme, SHIP, { id: order.id }),
      graphql(server, acme, SHIP, { id: order.id }),
    ])
    const errors = [a, b].map((s) => s.body.errors?.[0]?.extensions?.reason ?? 'ok').sort()
    expect(errors).toEqual(['CONFLICT', 'ok'])
  })

  it('publishPost and unpublishPost move a post between draft and published', async () => {
    const post = await createPost(acme)
    const published = await data(server, acme, 'mutation($id: ID!) { publishPost(id: $id) { published } }', {
      id: post.id,
    })
    expect(published.publishPost).toEqual({ published: true })
    const again = await graphql(server, acme, 'mutation($id: ID!) { publishPost(id: $id) { id } }', {
      id: post.id,
    })
    expectGraphQLError(again.body, 'BAD_USER_INPUT', ['published'])
    const back = await data(server, acme, 'mutation($id: ID!) { unpublishPost(id: $id) { published } }', {
      id: post.id,
    })
    expect(back.unpublishPost).toEqual({ published: false })
  })

  it('needs write:orders, keeps organizations apart and says NOT_FOUND for an unknown id', async () => {
    const order = await paidOrder()
    expectGraphQLError((await graphql(server, readOnly, SHIP, { id: order.id })).body, 'FORBIDDEN')
    expectGraphQLError((await graphql(server, globex, SHIP, { id: order.id })).body, 'FORBIDDEN')
    expectGraphQLError(
      (await graphql(server, acme, SHIP, { id: `ord_0${'a'.repeat(25)}` })).body,
      'NOT_FOUND',
    )
    expectGraphQLError((await graphql(server, null, SHIP, { id: order.id })).body, 'UNAUTHENTICATED')
    expect(await eventTypes(order.id)).toEqual(['order.created', 'order.updated'])
  })
})
