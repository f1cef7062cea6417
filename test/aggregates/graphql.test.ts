import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { data, expectGraphQLError, graphql, type Loose, scopedToken } from '../graphql/support.ts'
import { seedOrders } from '../query-method/support.ts'
import { createOrder } from '../rest/fixtures.ts'
import { fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * `{plural}Aggregate` (docs/bulk.md, "Aggregates in SQL bodies and GraphQL"): typed groups
 * `{ key count sum avg min max cursor }`, the list's filters, groupBy, sort, paging through every
 * group, BAD_USER_INPUT naming the argument, and the organization's walls and scopes.
 */

let server: TestServer
let acme: Tenant
let rival: Tenant

// seedOrders: paid 100 EUR, pending 250 USD, paid 400 USD, shipped 50 EUR, cancelled 999 GBP,
// paid 250 EUR, delivered 0 EUR.
beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  rival = await server.tenant()
  await seedOrders(acme)
  await createOrder(rival, { status: 'paid', amount: 5000, currency: 'EUR' })
})
afterAll(() => server.stop())

const today = () => `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`

describe('ordersAggregate', () => {
  it('answers one group of every record without groupBy', async () => {
    const got = await data(server, acme, '{ ordersAggregate { count sum { amount } avg { amount } } }')
    expect(got.ordersAggregate).toEqual([{ count: 7, sum: { amount: 2049 }, avg: { amount: 2049 / 7 } }])
  })

  it('groups by an enum, typed as the enum, with every function', async () => {
    const got = await data(
      server,
      acme,
      `{ ordersAggregate(groupBy: [status], status: [paid, shipped]) {
          key { status currency } count sum { amount } avg { amount } min { amount createdAt } max { amount } } }`,
    )
    expect(got.ordersAggregate).toEqual([
      {
        key: { status: 'paid', currency: null },
        count: 3,
        sum: { amount: 750 },
        avg: { amount: 250 },
        min: { amount: 100, createdAt: expect.stringMatching(/Z$/) },
        max: { amount: 400 },
      },
      {
        key: { status: 'shipped', currency: null },
        count: 1,
        sum: { amount: 50 },
        avg: { amount: 50 },
        min: { amount: 50, createdAt: expect.stringMatching(/Z$/) },
        max: { amount: 50 },
      },
    ])
  })

  it('groups by two keys, filtered as the plural field filters, sorted by an aggregate', async () => {
    const got = await data(
      server,
      acme,
      `{ ordersAggregate(groupBy: [currency, status], amountGte: 50, sort: "-sum(amount),currency") {
          key { currency status } count } }`,
    )
    expect(got.ordersAggregate).toEqual([
      { key: { currency: 'GBP', status: 'cancelled' }, count: 1 },
      { key: { currency: 'USD', status: 'paid' }, count: 1 },
      { key: { currency: 'EUR', status: 'paid' }, count: 2 },
      { key: { currency: 'USD', status: 'pending' }, count: 1 },
      { key: { currency: 'EUR', status: 'shipped' }, count: 1 },
    ])
  })

  it('groups a timestamp by day as the instant the day starts', async () => {
    const got = await data(
      server,
      acme,
      '{ ordersAggregate(groupBy: [createdAt_day]) { key { createdAt } count } }',
    )
    expect(got.ordersAggregate).toEqual([{ key: { createdAt: today() }, count: 7 }])
  })

  it('pages through every group with first and the last group’s cursor', async () => {
    const seen: Loose[] = []
    let after: string | null = null
    for (let pages = 0; pages < 10; pages++) {
      const got: Loose = await data(
        server,
        acme,
        'query($after: String) { ordersAggregate(groupBy: [status], sort: "count:desc,status", first: 2, after: $after) { key { status } count cursor } }',
        { after },
      )
      const groups = got.ordersAggregate as Loose[]
      seen.push(...groups)
      expect(groups.slice(0, -1).every((g) => g.cursor === null)).toBe(true)
      after = groups.at(-1)?.cursor ?? null
      if (!after) break
    }
    expect(seen.map((g) => g.key.status)).toEqual(['paid', 'cancelled', 'delivered', 'pending', 'shipped'])
  })

  it('computes fragments’ selections too', async () => {
    const got = await data(
      server,
      acme,
      `{ ordersAggregate(groupBy: [currency], sort: "currency") { ...Sums } }
       fragment Sums on OrderAggregate { key { currency } ... on OrderAggregate { max { amount } } }`,
    )
    expect(got.ordersAggregate).toEqual([
      { key: { currency: 'EUR' }, max: { amount: 250 } },
      { key: { currency: 'GBP' }, max: { amount: 999 } },
      { key: { currency: 'USD' }, max: { amount: 400 } },
    ])
  })

  it("never counts another organization's records", async () => {
    expect(
      (await data(server, rival, '{ ordersAggregate { count sum { amount } } }')).ordersAggregate,
    ).toEqual([{ count: 1, sum: { amount: 5000 } }])
  })

  it('needs the read scope', async () => {
    const token = await scopedToken(server, acme, ['read:products'])
    const sent = await graphql(server, acme, '{ ordersAggregate { count } }', undefined, { token })
    expectGraphQLError(sent.body, 'FORBIDDEN')
  })

  const bad: [string, string, string[]][] = [
    ['a key twice', '{ ordersAggregate(groupBy: [createdAt_day, createdAt_month]) { count } }', ['groupBy']],
    ['four keys', '{ ordersAggregate(groupBy: [status, currency, userId, amount]) { count } }', ['groupBy']],
    [
      'a sort key not grouped by',
      '{ ordersAggregate(groupBy: [status], sort: "currency") { count } }',
      ['sort'],
    ],
    ['sum of a text field in sort', '{ ordersAggregate(sort: "-sum(currency)") { count } }', ['sort']],
    ['count with a field', '{ ordersAggregate(sort: "count(amount)") { count } }', ['sort']],
    ['first out of range', '{ ordersAggregate(first: 101) { count } }', ['first']],
    ['a bad cursor', '{ ordersAggregate(after: "nope") { count } }', ['after']],
    ['a bad filter value', '{ ordersAggregate(createdAfter: "yesterday") { count } }', ['createdAfter']],
  ]
  it.each(bad)('answers BAD_USER_INPUT naming the argument for %s', async (_name, query, fields) => {
    const sent = await graphql(server, acme, query)
    expect(sent.body.data).toBeNull()
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', fields)
  })

  it('refuses a groupBy value its enum does not hold, as validation', async () => {
    const sent = await graphql(server, acme, '{ ordersAggregate(groupBy: [createdAt]) { count } }')
    expect(sent.status).toBe(400)
    expectGraphQLError(sent.body, 'BAD_USER_INPUT')
  })
})

describe('booksAggregate on the library', () => {
  const schema = librarySchema()
  let library: TestServer
  let tenant: Tenant
  beforeAll(async () => {
    library = await startTestServer({ schema })
    tenant = await library.tenant()
    const made = fixtures(schema, tenant)
    const le = await made.create('authors', { name: 'Ursula Le Guin' })
    const pratchett = await made.create('authors', { name: 'Terry Pratchett' })
    for (const [authorId, pages, status] of [
      [le.id, 387, 'available'],
      [le.id, 248, 'lent'],
      [pratchett.id, 288, 'available'],
      [pratchett.id, 320, 'available'],
      [pratchett.id, 400, 'lost'],
    ] as const)
      await made.create('books', { authorId, pages, status })
  })
  afterAll(() => library.stop())

  it('has typed aggregate types generated from the declaration', async () => {
    const type = async (name: string) =>
      (
        await data(
          library,
          tenant,
          `{ __type(name: "${name}") { fields { name type { name kind ofType { name } } } enumValues { name } } }`,
        )
      ).__type
    const key = await type('BookAggregateKey')
    expect(key.fields.find((f: Loose) => f.name === 'status').type.name).toBe('BookStatus')
    expect((await type('BookAggregateSum')).fields.map((f: Loose) => f.name)).toEqual(['pages'])
    expect((await type('BookAggregateAvg')).fields[0].type.name).toBe('Float')
    expect((await type('BookGroupBy')).enumValues.map((v: Loose) => v.name)).toEqual(
      expect.arrayContaining([
        'status',
        'authorId',
        'pages',
        'title',
        'createdAt_day',
        'createdAt_week',
        'createdAt_month',
      ]),
    )
    // Authors have no integer field: no sum or avg to ask for.
    expect((await type('AuthorAggregate')).fields.map((f: Loose) => f.name)).toEqual([
      'key',
      'count',
      'min',
      'max',
      'cursor',
    ])
  })

  it('counts and sums books per status, the enum as its GraphQL value', async () => {
    const got = await data(
      library,
      tenant,
      '{ booksAggregate(groupBy: [status], sort: "-sum(pages)") { key { status } count sum { pages } min { title } } }',
    )
    expect(got.booksAggregate.map((g: Loose) => [g.key.status, g.count, g.sum.pages])).toEqual([
      ['available', 3, 995],
      ['lost', 1, 400],
      ['lent', 1, 248],
    ])
  })

  it('groups by a reference, filtered by an enum', async () => {
    const got = await data(
      library,
      tenant,
      '{ booksAggregate(groupBy: [authorId], status: [available]) { key { authorId } count avg { pages } } }',
    )
    expect(got.booksAggregate).toHaveLength(2)
    expect(got.booksAggregate.map((g: Loose) => g.count).sort()).toEqual([1, 2])
  })
})
