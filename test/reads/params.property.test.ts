import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../shared/errors.ts'
import { filterParams, parseListParams } from '../../shared/query/list-params.ts'
import { PAGINATION_PARAMS } from '../../shared/query/pagination.ts'
import { events } from '../../shared/resources/events.ts'
import { exampleSchema, type Resource } from '../../shared/resources/index.ts'
import { createOrder, createPost, createProduct, createUser, readJson } from '../rest/fixtures.ts'
import { example } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientOf, list } from './helpers.ts'

const orders = example('orders')
const products = example('products')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

const A_ID = 'ord_01jd3v0m7qf8s9t2w4x6y8z0ab'
/** Values that have broken query parsers before: edge numbers, dates, sort syntax, prototype names. */
const TRICKY = [
  ...['', ' ', '0', '-1', '-0', '1', '100', '101', '1.5', '1e2', '0x10', '9'.repeat(30), 'NaN', 'Infinity'],
  ...[
    'true',
    'false',
    'TRUE',
    'null',
    '[]',
    '{}',
    'paid',
    'paid,shipped',
    'paid,,',
    ',',
    'admin',
    'order.created',
  ],
  ...[
    '2024-01-01',
    '2024-02-30',
    '2024-01-01T10:00',
    '2024-01-01T10:00:00+25:00',
    '0000-01-01',
    '9999-12-31',
  ],
  ...[
    '-amount',
    'amount:desc',
    'status,-amount',
    '-created_at:asc',
    'a,b,c,d,e',
    'created_at,createdAt',
    'id',
  ],
  ...['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', A_ID, 'x'.repeat(501)],
  ...["' OR 1=1 --", '"', '*', 'NEAR(a b)', 'a OR b', '-', ':', '%', '_', '\\', '\u0000', '💥', 'Ünïcödé'],
]
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
)
const EXTRA_NAMES = ['org_id', 'orgId', 'id', 'toString', '__proto__', 'constructor', 'collection', 'filter']
const namesOf = (resource: Resource) => [
  ...filterParams(resource).map((p) => p.name),
  ...PAGINATION_PARAMS,
  ...['sort', 'q', 'search'],
  ...EXTRA_NAMES,
]
const paramsFor = (names: string[], more: fc.Arbitrary<string> = value) =>
  fc
    .array(
      fc.tuple(
        fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, fc.string({ maxLength: 12 })),
        more,
      ),
      {
        maxLength: 6,
      },
    )
    .map((pairs) => new URLSearchParams(pairs))

describe('parseListParams', () => {
  const cases = fc
    .constantFrom(...SCHEMA.resources)
    .chain((resource) => fc.tuple(fc.constant(resource), paramsFor(namesOf(resource))))

  it('parses or throws a 400 BAD_REQUEST ApiError whose details name parameters that were sent', () => {
    fc.assert(
      fc.property(cases, ([resource, sent]) => {
        try {
          const { query, filters } = parseListParams(SCHEMA, resource, sent)
          expect(query.page.limit).toBeGreaterThanOrEqual(1)
          expect(query.page.limit).toBeLessThanOrEqual(100)
          for (const name of Object.keys(filters)) expect(sent.has(name)).toBe(true)
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError)
          const apiError = error as ApiError
          expect([apiError.code, apiError.status]).toEqual(['BAD_REQUEST', 400])
          expect(apiError.details.length).toBeGreaterThan(0)
          for (const detail of apiError.details) expect(sent.has(detail.field)).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })
})

describe('GET /api/v1/orders, /api/v1/products and /api/v1/search with hostile parameters', () => {
  let server: TestServer
  const tenants: Tenant[] = []
  /** Cursors and ids of both tenants, to be replayed anywhere. */
  const foreign: string[] = []

  beforeAll(async () => {
    server = await startTestServer()
    for (let t = 0; t < 2; t++) {
      const tenant = await server.tenant()
      tenants.push(tenant)
      const user = await createUser(tenant, { name: 'Common user' })
      for (let i = 0; i < 3; i++) {
        const order = await createOrder(tenant, {
          userId: user.id,
          amount: 100 * i,
          status: i ? 'paid' : 'pending',
        })
        const product = await createProduct(tenant, { name: `Common widget ${i}`, active: i !== 1 })
        foreign.push(order.id, product.id)
      }
      await createPost(tenant, { authorId: user.id, title: 'Common post' })
      for (const path of [
        '/api/v1/orders?limit=1',
        '/api/v1/products?limit=1&q=common',
        '/api/v1/search?q=common&limit=1',
      ]) {
        const cursor = (await list(tenant, path)).pagination.nextCursor as string
        foreign.push(cursor, `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`)
      }
    }
  })
  afterAll(() => server.stop())

  /** The organization that owns a record, read from the table its id prefix names. */
  async function ownerOf(id: string): Promise<string | undefined> {
    const resource = SCHEMA.resources.find((r) => id.startsWith(`${r.prefix}_`))
    if (!resource) return undefined
    const row = (await server.sql.get(`SELECT org_id FROM ${resource.table} WHERE id = ?`, id)) as {
      org_id: string
    } | null
    return row?.org_id
  }

  // Read when the property runs, after beforeAll has filled `foreign`.
  const anyForeign = fc.nat().map((i) => foreign[i % foreign.length]!)
  const mixed = fc.oneof(value, anyForeign)
  const FILTERS = ["status = 'paid'", "name LIKE '%'", '1 = 1', 'amount > 0 OR 1', '(((', 'id IS NOT NULL']
  /** An expression each collection accepts. */
  const GOOD_FILTERS: [string, string][] = [
    ['orders', "amount >= 0 AND status IN ('paid', 'pending')"],
    ['products', "name LIKE 'Common%' OR active = false"],
    ['posts', 'published = false'],
    ['users', "name = 'Common user'"],
    ['events', "type LIKE 'order.%'"],
  ]
  /** Parameters the endpoint accepts with values it accepts, so that many runs reach the store. */
  const VALID: Record<string, [string, string][]> = {
    orders: [
      ['status', 'paid,pending'],
      ['amount_gte', '100'],
      ['created_after', '2000-01-01'],
      ['user_id', A_ID],
    ],
    products: [
      ['q', 'common'],
      ['active', 'true'],
      ['price_lte', '5000'],
      ['sku', 'x'],
    ],
  }
  const COMMON: [string, string][] = [
    ['sort', '-created_at'],
    ['limit', '2'],
    ['include_total', 'true'],
    ['page', '1'],
  ]
  /** `required`, some of `optional`, and at times one hostile pair; or hostile pairs only. */
  const near = (
    names: string[],
    optional: [string, string][],
    required: fc.Arbitrary<[string, string][]> = fc.constant([]),
  ) =>
    fc.oneof(
      { weight: 1, arbitrary: paramsFor(names, mixed) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            required,
            fc.subarray([...optional, ...COMMON]),
            fc.option(fc.tuple(fc.constantFrom(...names), mixed), { freq: 2 }),
          )
          .map(
            ([first, pairs, extra]) => new URLSearchParams([...first, ...pairs, ...(extra ? [extra] : [])]),
          ),
      },
    )
  const SEARCH_NAMES = [
    'q',
    'search',
    'sort',
    'collection',
    'filter',
    ...PAGINATION_PARAMS,
    'org_id',
    'status',
  ]
  const text = fc.oneof(fc.constantFrom('common', 'comm', 'widget 1', 'Common post'), value)
  const collectionAndFilter = fc
    .oneof(
      fc.constantFrom(...GOOD_FILTERS),
      fc.tuple(
        fc.constantFrom(...GOOD_FILTERS.map(([c]) => c), 'nope'),
        fc.oneof(fc.constantFrom(...FILTERS), value),
      ),
    )
    .map(([collection, filter]): [string, string][] => [
      ['collection', collection],
      ['filter', filter],
    ])

  const endpoints: [path: string, params: fc.Arbitrary<URLSearchParams>][] = [
    ['/api/v1/orders', near(namesOf(orders), VALID.orders!)],
    ['/api/v1/products', near(namesOf(products), VALID.products!)],
    [
      '/api/v1/search',
      near(
        SEARCH_NAMES,
        [],
        fc.oneof(
          text.map((q): [string, string][] => [['q', q]]),
          collectionAndFilter,
        ),
      ),
    ],
  ]

  for (const [path, params] of endpoints) {
    it(`answers ${path} with 200 or 400, never 500, and only the asking organization's records`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(1), params, async (who, sent) => {
          const tenant = tenants[who]!
          const response = await tenant.fetch(`${path}?${sent}`)
          expect([200, 400]).toContain(response.status)
          const body = await readJson<Record<string, unknown>>(response)
          if (response.status === 400) {
            const { error } = body as { error: { code: string; details: { field: string }[] } }
            expect(error.code).toBe('BAD_REQUEST')
            for (const { field } of error.details)
              expect([...sent.keys(), 'q', 'collection']).toContain(field)
            return
          }
          const data = body.data as { id?: string; record?: { id: string } }[]
          for (const item of data) expect(await ownerOf(item.record?.id ?? item.id!)).toBe(tenant.orgId)
        }),
        { numRuns: 150 },
      )
    })
  }

  it('answers the event log to a token with only read:events and read:orders with order events alone, 400, or 403 naming a scope it lacks; never 500', async () => {
    const tenant = tenants[0]!
    const narrow = await clientOf(server, tenant.orgId, ['read:events', 'read:orders'])
    const collection = fc.constantFrom(...SCHEMA.resources.map((r) => r.name), 'nope', 'ORDERS', '')
    const eventFilter = fc.oneof(
      collection.map((c) => `resource = '${c}'`),
      fc.tuple(collection, collection).map(([a, b]) => `resource IN ('${a}', '${b}')`),
      collection.map((c) => `resource != '${c}' OR type LIKE '%'`),
      fc.constantFrom(...FILTERS, "type LIKE 'user.%'"),
      value,
    )
    const request = fc.oneof(
      fc
        .tuple(
          fc.constantFrom('/api/v1/events', '/api/v2/events'),
          fc.option(collection, { nil: undefined }),
          near(namesOf(events), [['type', 'user.created']]),
        )
        .map(([path, resource, params]) => {
          if (resource !== undefined) params.set('resource', resource)
          return `${path}?${params}`
        }),
      fc
        .tuple(eventFilter, fc.subarray(COMMON))
        .map(
          ([filter, pairs]) =>
            `/api/v1/search?${new URLSearchParams([['collection', 'events'], ['filter', filter], ...pairs])}`,
        ),
    )
    await fc.assert(
      fc.asyncProperty(request, async (path) => {
        const response = await narrow(path)
        const text = await response.text()
        expect([200, 400, 403]).toContain(response.status)
        expect(text).not.toContain('@example.com')
        const body = JSON.parse(text) as Record<string, unknown>
        if (response.status === 403) {
          const { error } = body as { error: { code: string; details: { message: string }[] } }
          expect(error.code).toBe('FORBIDDEN')
          const scope = /^requires (read:[a-z-]+)$/.exec(error.details[0]!.message)?.[1]
          expect([
            'read:users',
            'read:addresses',
            'read:products',
            'read:line-items',
            'read:posts',
            'read:comments',
            'read:webhook-endpoints',
            'read:oauth-clients',
          ]).toContain(scope!)
          // The path names a collection that scope guards (deliveries are the endpoints').
          const guarded = SCHEMA.resources.filter((r) => r.scopes.read === scope).map((r) => r.name)
          const decoded = decodeURIComponent(path.replaceAll('+', ' '))
          expect(guarded.some((name) => decoded.includes(name))).toBe(true)
          return
        }
        if (response.status === 400) return
        for (const event of body.data as { id: string; resource: string }[]) {
          expect(event.resource).toBe('orders')
          expect(await ownerOf(event.id)).toBe(tenant.orgId)
        }
      }),
      { numRuns: 150 },
    )
  })
})
