import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { counts, post } from './fixtures.ts'

/** The built-in example's orders and products: v2 shows their amounts as money objects. */
let server: TestServer
let tenant: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  const user = await tenant.fetch('/api/v2/users', {
    method: 'POST',
    json: { name: 'Ada', email: 'ada@import.example', role: 'member' },
  })
  userId = ((await user.json()) as { id: string }).id
})
afterAll(() => server.stop())

type ErrorBody = { error: { details: { field: string; message: string }[] } }

describe('v2 money columns', () => {
  it('amount.value and amount.currency make the money object, stored as amount and currency', async () => {
    const response = await post(
      tenant,
      '/api/v2/orders',
      'text/csv',
      `userId,status,amount.value,amount.currency\n${userId},paid,4200,EUR\n${userId},,99,USD\n`,
    )
    expect(response.status).toBe(201)
    const { data } = (await response.json()) as { data: { id: string }[] }
    const first = await (await tenant.fetch(`/api/v2/orders/${data[0]!.id}`)).json()
    expect(first).toMatchObject({ status: 'paid', amount: { value: 4200, currency: 'EUR' } })
    const second = await (await tenant.fetch(`/api/v1/orders/${data[1]!.id}`)).json()
    expect(second).toMatchObject({ status: 'pending', amount: 99, currency: 'USD' })
  })

  const failures: [string, string, string, { field: string; message: string }][] = [
    [
      'a missing currency',
      'userId,amount.value',
      'USER,10',
      { field: 'rows[0].amount.currency', message: 'is required' },
    ],
    [
      'a bad currency',
      'userId,amount.value,amount.currency',
      'USER,10,EURO',
      { field: 'rows[0].amount.currency', message: expect.any(String) as unknown as string },
    ],
    [
      'an amount that is no integer',
      'userId,amount.value,amount.currency',
      'USER,1.5,EUR',
      { field: 'rows[0].amount.value', message: 'must be an integer' },
    ],
    [
      'the v1 currency column in v2',
      'userId,amount.value,amount.currency,currency',
      'USER,1,EUR,EUR',
      { field: 'header.currency', message: 'column 4 is not a field of orders' },
    ],
    [
      'amount as one column in v2',
      'userId,amount',
      'USER,1',
      {
        field: 'header.amount',
        message: 'column 2 is an object: give its members as the columns amount.value, amount.currency',
      },
    ],
  ]
  for (const [name, header, row, detail] of failures) {
    it(`${name}: 422 naming ${detail.field}`, async () => {
      const before = await counts(server, tenant.orgId, 'orders', 'orders')
      const response = await post(
        tenant,
        '/api/v2/orders',
        'text/csv',
        `${header}\n${row.replace('USER', userId)}\n`,
      )
      expect(response.status).toBe(422)
      expect(((await response.json()) as ErrorBody).error.details).toContainEqual(detail)
      expect(await counts(server, tenant.orgId, 'orders', 'orders')).toEqual(before)
    })
  }

  it('NDJSON rows are v2 JSON bodies: money objects', async () => {
    const body = `{"userId":"${userId}","amount":{"value":5,"currency":"GBP"}}\n{"userId":"${userId}","amount":{"value":6}}\n`
    const response = await post(tenant, '/api/v2/orders', 'application/x-ndjson', body)
    expect(response.status).toBe(422)
    expect(((await response.json()) as ErrorBody).error.details).toContainEqual({
      field: 'rows[1].amount.currency',
      message: 'is required',
    })
  })
})

describe('v1 columns', () => {
  it('takes amount and currency as two columns, and a product sku unique in the file', async () => {
    const ok = await post(
      tenant,
      '/api/v1/products',
      'text/csv',
      'name,sku,price,currency,active\nMug,M-1,900,EUR,false\n',
    )
    expect(ok.status).toBe(201)
    const again = await post(
      tenant,
      '/api/v1/products',
      'text/csv',
      'name,sku,price,currency\nCup,C-1,100,EUR\nMug,M-1,900,EUR\n',
    )
    expect(again.status).toBe(409)
    expect(((await again.json()) as ErrorBody).error.details).toEqual([
      { field: 'rows[1].sku', message: 'is already taken in this organization' },
    ])
  })
})
