import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { query as localQuery } from 'json-p3'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createAddress, createPost, createUser, type Entity, expectError } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { ids, JSONPATH, query, queryPage, seedOrders } from './support.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let acme: Tenant
let orders: Entity[]

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  orders = (await seedOrders(acme)).orders
})
afterAll(() => server.stop())

describe('QUERY with application/jsonpath: RFC 9535 over the collection as an array', () => {
  // Filters pushed down to SQL, filters partly evaluated in memory, and paths over the whole array.
  const paths = [
    "$[?@.status == 'paid']",
    '$[?@.amount >= 250 && @.currency != "EUR"]',
    "$[?!(@.status == 'paid' || @.status == 'pending')].amount",
    "$[?@.amount > 100 && search(@.currency, 'U')].id",
    '$[?length(@.currency) == 3 && @.amount < 100]',
    "$[?@.currency == 'EUR' && @.nonexistent]",
    '$[*].status',
    '$.*.currency',
    '$[0]',
    '$[-1].amount',
    '$[1:3].id',
    '$[::-2].id',
    '$..currency',
    '$[?@.amount == $[0].amount].id',
    "$[?@['status'] == 'paid']['id', 'amount']",
  ]
  for (const path of paths) {
    it(`${path} selects what json-p3 selects from the same array`, async () => {
      const page = await queryPage<unknown>(acme, '/api/v1/orders?limit=100', JSONPATH, path)
      expect(page.data).toEqual(localQuery(path, orders as never).values())
    })
  }

  it('keeps JSONPath semantics for fields without a value (null), pushed down or not', async () => {
    const user = await createUser(acme)
    const withCode = await createAddress(acme, user.id, { postalCode: '1010' })
    const withOther = await createAddress(acme, user.id, { postalCode: '2020' })
    const without = await createAddress(acme, user.id, { postalCode: null })
    const path = `/api/v1/users/${user.id}/addresses`
    const cases: [string, Entity[]][] = [
      ["$[?@.postalCode != '1010']", [without, withOther]],
      ["$[?!(@.postalCode == '1010')]", [without, withOther]],
      ['$[?@.postalCode == null]', [without]],
      ['$[?@.postalCode != null]', [withOther, withCode]],
      ["$[?@.postalCode < '3000']", [withOther, withCode]],
    ]
    for (const [jsonPath, expected] of cases) {
      const page = await queryPage(acme, path, JSONPATH, jsonPath)
      expect({ jsonPath, ids: ids(page) }).toEqual({ jsonPath, ids: expected.map((e) => e.id) })
    }
  })

  it('refuses a path that selects the collection itself ($)', async () => {
    await expectError(await query(acme, '/api/v1/orders', JSONPATH, '$'), 422, 'VALIDATION_ERROR', ['body'])
  })

  it('allows $ inside filters once; two absolute queries are 422', async () => {
    const body = '$[?@.amount == $[0].amount && @.amount == $[1].amount]'
    await expectError(await query(acme, '/api/v1/orders', JSONPATH, body), 422, 'VALIDATION_ERROR', ['body'])
  })

  it('on /api/v1/search, the path must start with a collection', async () => {
    await expectError(
      await query(acme, '/api/v1/search', JSONPATH, "$[?@.status == 'paid']"),
      422,
      'VALIDATION_ERROR',
      ['body'],
    )
    await expectError(
      await query(acme, '/api/v1/search', JSONPATH, '$.secrets[*]'),
      422,
      'VALIDATION_ERROR',
      ['body'],
    )
  })
})

describe('JSONPath match() and search() cannot stall the server', () => {
  let text: string
  beforeAll(async () => {
    text = 'a'.repeat(60_000)
    await createPost(acme, { title: 'long', body: text })
  })

  const catastrophic = ['(a|aa)*b', '(a+)+b', '(a*)*b', '(a|a?)+b', '(.*a){20}b']
  for (const pattern of catastrophic) {
    for (const fn of ['match', 'search']) {
      it(`${fn}(@.body, '${pattern}') on 60,000 characters answers at once`, async () => {
        const started = performance.now()
        const page = await queryPage(acme, '/api/v1/posts', JSONPATH, `$[?${fn}(@.body, '${pattern}')].id`)
        expect(page.data).toEqual([])
        expect(performance.now() - started).toBeLessThan(2000)
      })
    }
  }

  it('matches I-Regexp as RFC 9535 says: whole value for match(), any part for search()', async () => {
    const titles = await queryPage<string>(
      acme,
      '/api/v1/posts',
      JSONPATH,
      "$[?match(@.title, 'lo.g')].title",
    )
    expect(titles.data).toEqual(['long'])
    expect((await queryPage(acme, '/api/v1/posts', JSONPATH, "$[?match(@.title, 'on')].title")).data).toEqual(
      [],
    )
    expect(
      (await queryPage<string>(acme, '/api/v1/posts', JSONPATH, "$[?search(@.title, 'on')].title")).data,
    ).toEqual(['long'])
    // Not I-Regexp (\\d is not in RFC 9485): the function is false, not an error.
    expect(
      (await queryPage(acme, '/api/v1/posts', JSONPATH, "$[?search(@.title, '\\\\d')].title")).data,
    ).toEqual([])
  })

  it('refuses patterns longer than 500 characters with 422', async () => {
    const body = `$[?search(@.title, '${'a'.repeat(501)}')]`
    await expectError(await query(acme, '/api/v1/posts', JSONPATH, body), 422, 'VALIDATION_ERROR', ['body'])
  })
})

describe('JSONPath bounds on what is evaluated in memory', () => {
  let big: Tenant
  beforeAll(async () => {
    big = await server.tenant()
    const user = await createUser(big)
    const rows = Array.from({ length: 1100 }, (_, i) => {
      const at = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString()
      return [newId('ord'), big.orgId, user.id, i % 2 === 0 ? 'paid' : 'pending', i, at, at]
    })
    await server.sql.run(
      `INSERT INTO orders (id, org_id, user_id, status, amount, currency, created_at, updated_at)
       VALUES ${rows.map(() => "(?, ?, ?, ?, ?, 'EUR', ?, ?)").join(', ')}`,
      ...rows.flat(),
    )
  })

  it('pages a filter that runs in SQL through any number of records', async () => {
    const page = await queryPage<number>(
      big,
      '/api/v1/orders?limit=100',
      JSONPATH,
      "$[?@.status == 'paid' && @.amount >= 1000].amount",
    )
    expect(page.data).toEqual([
      1098, 1096, 1094, 1092, 1090, 1088, 1086, 1084, 1082, 1080, 1078, 1076, 1074, 1072, 1070, 1068, 1066,
      1064, 1062, 1060, 1058, 1056, 1054, 1052, 1050, 1048, 1046, 1044, 1042, 1040, 1038, 1036, 1034, 1032,
      1030, 1028, 1026, 1024, 1022, 1020, 1018, 1016, 1014, 1012, 1010, 1008, 1006, 1004, 1002, 1000,
    ])
  })

  it('evaluates a filter partly in memory while the page fills within 1000 records', async () => {
    const page = await queryPage<number>(
      big,
      '/api/v1/orders?limit=5',
      JSONPATH,
      "$[?@.status == 'paid' && match(@.currency, 'E.R')].amount",
    )
    expect(page.data).toEqual([1098, 1096, 1094, 1092, 1090])
    expect(page.pagination.hasMore).toBe(true)
  })

  it('422 rather than a silently short page when more than 1000 records would be tested in memory', async () => {
    const body = "$[?match(@.currency, 'USD')]"
    const error = await expectError(
      await query(big, '/api/v1/orders', JSONPATH, body),
      422,
      'VALIDATION_ERROR',
      ['body'],
    )
    expect(error.error.details[0]!.message).toContain('1000')
  })

  it('422 for a path over the whole array when the collection holds more than 1000 records', async () => {
    await expectError(await query(big, '/api/v1/orders', JSONPATH, '$[-1]'), 422, 'VALIDATION_ERROR', [
      'body',
    ])
    await expectError(await query(big, '/api/v1/orders', JSONPATH, '$..amount'), 422, 'VALIDATION_ERROR', [
      'body',
    ])
  })

  it('pages nodes of a whole-array path with a cursor', async () => {
    const first = await queryPage<string>(acme, '/api/v1/orders?limit=3', JSONPATH, '$..currency')
    expect(first.data).toEqual(orders.slice(0, 3).map((o) => o.currency as string))
    const second = await (await acme.fetch(first.pagination.next!)).json()
    expect((second as { data: string[] }).data).toEqual(orders.slice(3, 6).map((o) => o.currency as string))
  })
})

describe('the time budget of a QUERY', () => {
  it('answers 503 with Retry-After, never a stalled server, when in-memory evaluation runs out of time', async () => {
    const { parseQuery, runQuery, QUERY_TIME_BUDGET_MS } = await import('../../server/query/run.ts')
    const { CursorCodec } = await import('../../server/resources/cursor.ts')
    const { ApiError } = await import('../../shared/errors.ts')
    const resource = SCHEMA.byName('orders')!
    // A clock that jumps past the budget on every reading, as a slow evaluation would.
    let now = Date.now()
    const engine = {
      store: server.store,
      schema: server.store.schema,
      clock: () => (now += QUERY_TIME_BUDGET_MS + 1),
      cursors: new CursorCodec(new Uint8Array(32)),
    }
    const principal = {
      kind: 'client' as const,
      subject: acme.clientId,
      orgId: acme.orgId,
      clientId: acme.clientId,
      scopes: new Set(['read:orders']),
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    }
    const target = { kind: 'collection' as const, resource }
    for (const path of ["$[?match(@.currency, 'E.R')]", '$..amount']) {
      const parsed = await parseQuery(SCHEMA, { mediaType: 'application/jsonpath', text: path }, target)
      let thrown: unknown
      try {
        await runQuery(engine, principal, parsed, target, new URL('http://x/api/v1/queries/q'))
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ApiError)
      expect((thrown as InstanceType<typeof ApiError>).status).toBe(503)
      expect((thrown as InstanceType<typeof ApiError>).headers['Retry-After']).toBe('1')
    }
  })
})
