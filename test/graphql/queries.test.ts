import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { pluralField } from '../../server/graphql/names.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'
import {
  createOrder,
  createUser,
  createWebhookEndpoint,
  type Entity,
  firstDelivery,
  type ListBody,
  readJson,
} from '../rest/fixtures.ts'
import { fixtures } from '../support/example-values.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'
import { data, expectGraphQLError, graphql, type Loose } from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
/** One record of every collection, as REST serves it. */
const sample: Record<string, Entity> = {}
const orders: Entity[] = []
let receiver: Receiver

const rest = async (path: string) => readJson(await acme.fetch(path))

beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowHttp: true, pollMs: 25 } })
  acme = await server.tenant()
  receiver = startReceiver()
  const endpoint = await createWebhookEndpoint(acme, { url: receiver.url, eventTypes: ['user.created'] })
  const user = await createUser(acme, { name: 'Grace Hopper', role: 'admin' })
  const amounts: [number, string][] = [
    [500, 'pending'],
    [1500, 'paid'],
    [2500, 'shipped'],
    [3500, 'paid'],
    [4500, 'cancelled'],
  ]
  for (const [amount, status] of amounts)
    orders.push(await createOrder(acme, { userId: user.id, amount, status }))
  // One record of every other declared collection, made from the declaration in dependency order:
  // what it references or nests under is Grace, the first order, or the record made before it.
  Object.assign(sample, { users: user, orders: orders[0] })
  const made = fixtures(SCHEMA, acme, { users: user.id, orders: orders[0]!.id })
  for (const resource of SCHEMA.resources)
    if ((!resource.service || resource.name === 'oauth-clients') && !sample[resource.name])
      sample[resource.name] = (await made.create(resource.name)) as Entity
  // Delivered to a receiver that answers 204, the delivery no longer changes.
  sample.deliveries = await firstDelivery(acme, endpoint.id, 'succeeded')
  sample['webhook-endpoints'] = await rest(`/api/v1/webhook-endpoints/${endpoint.id}`)
  // As a read shows it: the create's answer alone carries the secret.
  sample['oauth-clients'] = await rest(`/api/v1/oauth-clients/${sample['oauth-clients']!.id}`)
  const events = await readJson<ListBody>(await acme.fetch('/api/v1/events?limit=1'))
  sample.events = events.data[0]!
})
afterAll(async () => {
  receiver.stop()
  await server.stop()
})

/** Every field of a resource, in the order REST serializes them; an object with its keys (`actor { type id }`). */
const selection = (name: string) => {
  const resource = SCHEMA.resources.find((r) => r.name === name)!
  const fields = resource.presented.map((f) =>
    resource.objects[f] ? `${f} { ${Object.keys(resource.objects[f]).join(' ')} }` : f,
  )
  return ['id', ...fields, 'createdAt', 'updatedAt'].join(' ')
}

describe('singular and plural query fields', () => {
  it.each(SCHEMA.resources.map((r) => [r.name, r.singular, pluralField(r)]))(
    '%s: %s(id) and %s answer the REST representation',
    async (name, singular, plural) => {
      const record = sample[name]!
      const got = await data(
        server,
        acme,
        `query($id: ID!) { one: ${singular}(id: $id) { ${selection(name)} } many: ${plural}(first: 100) { nodes { id } } }`,
        { id: record.id },
      )
      expect(got.one).toEqual(record)
      expect(got.many.nodes.map((n: Entity) => n.id)).toContain(record.id)
    },
  )

  it('answers NOT_FOUND for a missing or malformed id, with data null at that path', async () => {
    for (const id of ['ord_7zzzzzzzzzzzzzzzzzzzzzzzzz', 'nope']) {
      const sent = await graphql(server, acme, 'query($id: ID!) { order(id: $id) { id } }', { id })
      expect(sent.body.data).toEqual({ order: null })
      expect(expectGraphQLError(sent.body, 'NOT_FOUND').path).toEqual(['order'])
    }
  })
})

describe('list arguments (the REST filters and sort, in camelCase)', () => {
  const cases: [string, string, string][] = [
    ['one enum value', 'status: paid', 'status=paid'],
    ['several enum values', 'status: [paid, shipped]', 'status=paid,shipped'],
    ['a range', 'amountGte: 1500, amountLte: 3500', 'amount_gte=1500&amount_lte=3500'],
    ['a sort', 'sort: "-amount"', 'sort=-amount'],
    ['a sort with direction', 'sort: "status:asc,amount:desc"', 'sort=status:asc,amount:desc'],
    ['a time range', 'createdAfter: "2000-01-01"', 'created_after=2000-01-01'],
  ]
  it.each(cases)('filters by %s exactly as REST does', async (_, args, query) => {
    const got = await data(server, acme, `{ orders(${args}) { nodes { id } } }`)
    const expected = await readJson<ListBody>(await acme.fetch(`/api/v1/orders?${query}`))
    expect(got.orders.nodes.map((n: Entity) => n.id)).toEqual(expected.data.map((r) => r.id))
  })

  it('searches with q', async () => {
    const got = await data(server, acme, '{ users(q: "hopp") { nodes { name } } }')
    expect(got.users.nodes).toEqual([{ name: 'Grace Hopper' }])
  })

  it('keeps REST enum values: status: paid in and out', async () => {
    const got = await data(
      server,
      acme,
      '{ orders(status: paid, sort: "amount") { nodes { status amount } } }',
    )
    expect(got.orders.nodes).toEqual([
      { status: 'paid', amount: 1500 },
      { status: 'paid', amount: 3500 },
    ])
  })

  const invalid: [string, string, string][] = [
    ['an unsortable field', 'sort: "currency"', 'sort'],
    ['a page size of 0', 'first: 0', 'first'],
    ['a page size over 100', 'first: 101', 'first'],
    ['a cursor that is not ours', 'after: "abc.def"', 'after'],
    ['a malformed date', 'createdAfter: "yesterday"', 'createdAfter'],
  ]
  it.each(invalid)('rejects %s with BAD_USER_INPUT naming the argument', async (_, args, field) => {
    const sent = await graphql(server, acme, `{ orders(${args}) { nodes { id } } }`)
    expect(sent.status).toBe(200)
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', [field])
  })

  it('refuses an enum value the declaration does not have before running', async () => {
    const sent = await graphql(server, acme, '{ orders(status: lost) { nodes { id } } }')
    expect(sent.status).toBe(400)
    expectGraphQLError(sent.body, 'BAD_USER_INPUT')
  })
})

describe('connections', () => {
  const page = `query($after: String) { orders(first: 2, after: $after, sort: "amount") {
    nodes { id } edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`

  it('visits every record once by following pageInfo.endCursor', async () => {
    const seen: string[] = []
    let after: string | null = null
    for (let i = 0; i < 10; i++) {
      const got: Loose = await data(server, acme, page, { after })
      seen.push(...got.orders.nodes.map((n: Entity) => n.id))
      expect(got.orders.edges.map((e: Loose) => e.node.id)).toEqual(got.orders.nodes.map((n: Entity) => n.id))
      if (!got.orders.pageInfo.hasNextPage) break
      after = got.orders.pageInfo.endCursor
    }
    expect(seen).toEqual([...orders].sort((a, b) => Number(a.amount) - Number(b.amount)).map((o) => o.id))
  })

  it("uses the engine's cursors: endCursor is REST's nextCursor, and an edge cursor resumes after its record", async () => {
    const got = await data(server, acme, page, { after: null })
    const restPage = await readJson<ListBody>(await acme.fetch('/api/v1/orders?limit=2&sort=amount'))
    expect(got.orders.pageInfo.endCursor).toBe(restPage.pagination.nextCursor)
    const next = await data(server, acme, page, { after: got.orders.edges[0].cursor })
    expect(next.orders.nodes[0].id).toBe(got.orders.nodes[1].id)
  })

  it('counts totalCount over all pages', async () => {
    const got = await data(server, acme, '{ orders(first: 1, status: paid) { totalCount nodes { id } } }')
    expect(got.orders).toMatchObject({ totalCount: 2 })
    expect(got.orders.nodes).toHaveLength(1)
  })

  it('answers an empty page with endCursor null and hasNextPage false', async () => {
    const got = await data(
      server,
      acme,
      '{ orders(status: delivered) { nodes { id } pageInfo { hasNextPage endCursor } } }',
    )
    expect(got.orders).toEqual({ nodes: [], pageInfo: { hasNextPage: false, endCursor: null } })
  })
})

describe('relations', () => {
  // Every reference field of every declaration gives an object field named without `Id`.
  const references = SCHEMA.resources.flatMap((r) =>
    Object.entries(r.fields)
      .filter(([, f]) => f.references)
      .map(([field]) => [r.name, r.singular, field, field.slice(0, -2)] as const),
  )
  it.each(references)('%s: %s.%s gives %s', async (name, singular, field, relation) => {
    const record = sample[name]!
    const got = await data(server, acme, `query($id: ID!) { ${singular}(id: $id) { ${relation} { id } } }`, {
      id: record.id,
    })
    expect(got[singular][relation]).toEqual({ id: record[field] })
  })

  const nested = SCHEMA.resources
    .filter((r) => r.parent)
    .map((r) => {
      const parent = SCHEMA.resources.find((p) => p.name === r.parent!.collection)!
      return [parent.singular, pluralField(r), r.name, parent.name] as const
    })
  it.each(nested)('%s.%s lists the nested %s of that record only', async (singular, field, child, parent) => {
    const got = await data(
      server,
      acme,
      `query($id: ID!) { ${singular}(id: $id) { ${field} { totalCount nodes { id } } } }`,
      { id: sample[parent]!.id },
    )
    expect(got[singular][field]).toEqual({ totalCount: 1, nodes: [{ id: sample[child]!.id }] })
  })

  // The other way: a reference that is not a parent gives its target a connection of the records
  // holding it, named after the collection (`user.orders`), or also after the relation when one
  // collection references the target by several fields.
  const referrers = SCHEMA.resources.flatMap((r) => {
    const fields = Object.entries(r.fields).filter(([f, d]) => d.references && f !== r.parent?.field)
    return fields.map(([field, d]) => {
      const target = SCHEMA.byName(d.references!)!
      const several = fields.filter(([, e]) => e.references === target.name).length > 1
      const nested = r.parent?.collection === target.name
      const list = several || nested ? `${pluralField(r)}As${pascal(field.slice(0, -2))}` : pluralField(r)
      return [target.name, target.singular, list, r.name, field] as const
    })
  })
  it.each(referrers)(
    '%s: %s.%s lists the %s whose %s names it',
    async (target, singular, list, name, field) => {
      const got = await data(
        server,
        acme,
        `query($id: ID!) { ${singular}(id: $id) { ${list}(first: 100) { nodes { id ${field} } } } }`,
        { id: sample[target]!.id },
      )
      const nodes = got[singular][list].nodes as Loose[]
      expect(nodes.map((n) => n.id)).toContain(sample[name]!.id)
      expect(new Set(nodes.map((n) => n[field]))).toEqual(new Set([sample[target]!.id]))
    },
  )

  it('follows relations through connections (orders -> lineItems -> product)', async () => {
    const got = await data(
      server,
      acme,
      '{ orders(sort: "amount", first: 1) { nodes { user { name } lineItems { nodes { product { sku } } } } } }',
    )
    expect(got.orders.nodes).toEqual([
      { user: { name: 'Grace Hopper' }, lineItems: { nodes: [{ product: { sku: sample.products!.sku } }] } },
    ])
  })
})
