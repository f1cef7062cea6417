import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { typeName } from '../../server/graphql/names.ts'
import { exampleSchema, type Field, type Resource } from '../../shared/resources/index.ts'
import {
  createOrder,
  createProduct,
  createUser,
  type Entity,
  type ErrorBody,
  listEvents,
  productBody,
  readJson,
} from '../rest/fixtures.ts'
import { exampleRecord, exampleValue, fixtures } from '../support/example-values.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { data, expectGraphQLError, graphql } from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  server = await startTestServer({ webhooks: { allowHttp: true } })
  acme = await server.tenant()
  globex = await server.tenant()
})
afterAll(() => server.stop())

/** What example values cannot give the service's own: a webhook URL the test server may reach. */
const SERVICE_INPUT: Record<string, Record<string, unknown>> = {
  'webhook-endpoints': { url: 'http://127.0.0.1:9/hook', eventTypes: [] },
}

/** A value of `field` other than its example value. */
function changed(field: Field): unknown {
  if (field.declaration.type === 'enum') return field.values!.at(-1)
  if (field.declaration.type === 'boolean') return false
  return exampleValue(field, 7, () => '')
}

/**
 * A change to a record of `r`, from its declaration: its first plain field (no reference, not one
 * only admins set), and an integer past 2^31 where one is allowed, which GraphQL's SafeInt carries.
 */
function patchOf(r: Resource): Record<string, unknown> {
  const plain = r.writableFields.filter(
    (n) => !r.fields[n]!.references && !r.fields[n]!.privileged && !(n in (SERVICE_INPUT[r.name] ?? {})),
  )
  const patch: Record<string, unknown> = plain[0] ? { [plain[0]]: changed(r.fields[plain[0]]!) } : {}
  const wide = plain.find(
    (n) => r.fields[n]!.kind === 'integer' && (r.fields[n]!.declaration.max ?? Infinity) > 2 ** 31,
  )
  if (wide) patch[wide] = 3_000_000_000
  return patch
}

/** A valid create of `r` made from its declaration: its parent and what it references made first. */
async function createOf(
  t: Tenant,
  r: Resource,
): Promise<{ parentId?: string; input: Record<string, unknown> }> {
  const made = fixtures(SCHEMA, t)
  const targets: Record<string, string> = {}
  for (const name of r.writableFields) {
    const target = r.fields[name]!.references
    if (target) targets[target] ??= await made.idOf(target)
  }
  const input = { ...exampleRecord(r, 0, (c) => targets[c]!), ...SERVICE_INPUT[r.name] }
  return r.parent ? { parentId: await made.idOf(r.parent.collection), input } : { input }
}

const writable = SCHEMA.resources.filter((r) => r.writable)

describe('mutations for every writable resource', () => {
  it.each(writable.map((r) => [r.name, r] as const))(
    '%s: create, update, replace and delete as REST does',
    async (name, r) => {
      const type = typeName(r)
      const fields = ['id', ...Object.keys(r.fields), 'createdAt', 'updatedAt'].join(' ')
      const { parentId, input } = await createOf(acme, r)
      const parentArg = r.parent ? `${r.parent.field}: $parent, ` : ''
      const created = await data(
        server,
        acme,
        `mutation($parent: ID!, $input: Create${type}Input!) { record: create${type}(${parentArg}input: $input) { ${fields} } }`.replace(
          r.parent ? '' : '$parent: ID!, ',
          '',
        ),
        r.parent ? { parent: parentId, input } : { input },
      )
      const record = created.record as Entity
      expect(record).toEqual(await readJson(await acme.fetch(`/api/v1/${name}/${record.id}`)))
      expect((await listEvents(acme, 1))[0]).toMatchObject({
        type: `${r.eventName}.created`,
        resourceId: record.id,
      })

      const patch = patchOf(r)
      const updated = await data(
        server,
        acme,
        `mutation($id: ID!, $input: Update${type}Input!) { update${type}(id: $id, input: $input) { ${fields} } }`,
        {
          id: record.id,
          input: patch,
        },
      )
      expect(updated[`update${type}`]).toMatchObject(patch)
      expect((await listEvents(acme, 1))[0]).toMatchObject({
        type: `${r.eventName}.updated`,
        resourceId: record.id,
      })

      const replaced = await data(
        server,
        acme,
        `mutation($id: ID!, $input: Replace${type}Input!) { replace${type}(id: $id, input: $input) { ${fields} } }`,
        {
          id: record.id,
          input,
        },
      )
      expect(replaced[`replace${type}`]).toEqual({
        ...record,
        updatedAt: replaced[`replace${type}`].updatedAt,
      })

      const deleted = await data(server, acme, `mutation($id: ID!) { delete${type}(id: $id) }`, {
        id: record.id,
      })
      expect(deleted).toEqual({ [`delete${type}`]: record.id })
      expect((await acme.fetch(`/api/v1/${name}/${record.id}`)).status).toBe(404)
      expect((await listEvents(acme, 1))[0]).toMatchObject({
        type: `${r.eventName}.deleted`,
        resourceId: record.id,
      })
    },
  )
})

describe('mutation validation: the same rules as REST', () => {
  it('reports the same field details as REST for an invalid body', async () => {
    const input = { userId: (await createUser(acme)).id, amount: -1, currency: 'euro' }
    const sent = await graphql(
      server,
      acme,
      'mutation($input: CreateOrderInput!) { createOrder(input: $input) { id } }',
      { input },
    )
    expect(sent.status).toBe(200)
    expect(sent.body.data).toBeNull()
    const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['amount', 'currency'])
    expect(error.extensions?.reason).toBe('VALIDATION_ERROR')
    const viaRest = await readJson<ErrorBody>(
      await acme.fetch('/api/v1/orders', { method: 'POST', json: input }),
    )
    expect(error.extensions?.details).toEqual(viaRest.error.details)
  })

  it('refuses null for a field that cannot be null', async () => {
    const order = await createOrder(acme)
    const sent = await graphql(
      server,
      acme,
      'mutation($id: ID!) { updateOrder(id: $id, input: {amount: null}) { id } }',
      { id: order.id },
    )
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['amount'])
  })

  it('refuses read-only and unknown fields before running', async () => {
    for (const field of ['id: "x"', 'createdAt: "2020-01-01"', 'nope: 1']) {
      const sent = await graphql(
        server,
        acme,
        `mutation { createUser(input: {name: "A", email: "ro@example.com", ${field}}) { id } }`,
      )
      expect(sent.status).toBe(400)
      expectGraphQLError(sent.body, 'BAD_USER_INPUT')
    }
    expect(await server.sql.get("SELECT 1 FROM users WHERE email = 'ro@example.com'")).toBeNull()
  })

  it('reports a duplicate unique field as BAD_USER_INPUT with reason CONFLICT', async () => {
    const product = await createProduct(acme)
    const sent = await graphql(
      server,
      acme,
      'mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }',
      {
        input: { ...productBody(), sku: product.sku },
      },
    )
    const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['sku'])
    expect(error.extensions?.reason).toBe('CONFLICT')
  })

  it("refuses a reference to another organization's record", async () => {
    const foreign = await createUser(globex)
    const sent = await graphql(
      server,
      acme,
      'mutation($u: ID!) { createOrder(input: {userId: $u, amount: 1, currency: "EUR"}) { id } }',
      { u: foreign.id },
    )
    expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['userId'])
  })

  it('creates a nested record only under a parent of the organization', async () => {
    const product = await createProduct(acme)
    const create =
      'mutation($o: ID!, $p: ID!) { createLineItem(orderId: $o, input: {productId: $p, quantity: 1, unitPrice: 1}) { id } }'
    const foreign = await graphql(server, acme, create, { o: (await createOrder(globex)).id, p: product.id })
    expectGraphQLError(foreign.body, 'FORBIDDEN')
    const missing = await graphql(server, acme, create, {
      o: 'ord_7zzzzzzzzzzzzzzzzzzzzzzzzz',
      p: product.id,
    })
    expectGraphQLError(missing.body, 'NOT_FOUND')
  })

  it('does not delete a record others still refer to', async () => {
    const order = await createOrder(acme)
    const sent = await graphql(server, acme, 'mutation($id: ID!) { deleteUser(id: $id) }', {
      id: order.userId,
    })
    const error = expectGraphQLError(sent.body, 'BAD_USER_INPUT', ['orders'])
    expect(error.extensions?.reason).toBe('CONFLICT')
  })

  it('runs several mutations in order, each committed on its own', async () => {
    const email = 'twice@example.com'
    const sent = await graphql(
      server,
      acme,
      `mutation { a: createUser(input: {name: "A", email: "${email}"}) { email } b: createUser(input: {name: "B", email: "${email}"}) { email } }`,
    )
    // The second fails (the e-mail is taken); its non-null result nulls `data`, but the first stays.
    expect(sent.body.data).toBeNull()
    expect(sent.body.errors?.[0]?.path).toEqual(['b'])
    expect(await server.sql.all('SELECT name FROM users WHERE email = ?', email)).toEqual([{ name: 'A' }])
  })
})
