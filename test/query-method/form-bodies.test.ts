import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createProduct, expectError } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { FORM, ids, JSON_TYPE, query, queryPage } from './support.ts'

/**
 * A form body is a GET's query string and nothing else (docs/query.md, "Form and JSON bodies"):
 * every parameter in it is applied or refused, never dropped.
 */

let server: TestServer
let acme: Tenant
let mug: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  mug = (await createProduct(acme, { name: 'Mug', sku: 'MUG-1' })).id
  await createProduct(acme, { name: 'Cup', sku: 'CUP-1' })
})
afterAll(() => server.stop())

const form = (params: Record<string, string>) => new URLSearchParams(params).toString()

describe('QUERY with a form body: no parameter is dropped', () => {
  for (const version of ['v1', 'v2']) {
    it(`${version}: filter in a form body is 422 naming filter and saying where it goes, not every product`, async () => {
      const response = await query(acme, `/api/${version}/products`, FORM, form({ filter: "sku = 'nope'" }))
      const body = await expectError(response, 422, 'VALIDATION_ERROR', ['filter'])
      expect(body.error.details[0]!.message).toMatch(/JSON QUERY body/)
    })
  }

  it('filter is refused with the other parameters a form body does not take, one detail each', async () => {
    const response = await query(
      acme,
      '/api/v2/products',
      FORM,
      form({ filter: "sku = 'nope'", colour: 'red', limit: '1' }),
    )
    await expectError(response, 422, 'VALIDATION_ERROR', ['filter', 'colour'])
  })

  it('a GET does not take filter either (400), so a form body and a GET stay the same parameters', async () => {
    const response = await acme.fetch(`/api/v2/products?${form({ filter: "sku = 'nope'" })}`)
    await expectError(response, 400, 'BAD_REQUEST', ['filter'])
  })

  it('a JSON body applies filter, as the contract allows', async () => {
    const none = await queryPage(
      acme,
      '/api/v2/products',
      JSON_TYPE,
      JSON.stringify({ filter: "sku = 'nope'" }),
    )
    expect(none.data).toEqual([])
    const one = await queryPage(
      acme,
      '/api/v2/products',
      JSON_TYPE,
      JSON.stringify({ filter: "sku = 'MUG-1'" }),
    )
    expect(ids(one)).toEqual([mug])
  })

  it('/search applies collection and filter from a form body', async () => {
    const page = await queryPage(
      acme,
      '/api/v2/search',
      FORM,
      form({ collection: 'products', filter: "sku = 'MUG-1'" }),
    )
    expect(ids(page)).toEqual([mug])
  })
})
