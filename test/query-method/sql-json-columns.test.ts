import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { query, queryPage, SQL } from './support.ts'

let server: TestServer
let acme: Tenant
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  userId = (await createUser(acme, { name: 'Ann' })).id
})
afterAll(() => server.stop())

describe('QUERY /api/v2/events with SQL naming the JSON column data', () => {
  it('selects it, as the select list says it may', async () => {
    const page = await queryPage(
      acme,
      '/api/v2/events',
      SQL,
      `SELECT id, data FROM events WHERE resource_id = '${userId}'`,
    )
    expect(page.data).toHaveLength(1)
    expect(Object.keys(page.data[0]!).sort()).toEqual(['data', 'id'])
    expect(page.data[0]!.data).toMatchObject({ id: userId, name: 'Ann' })
  })

  it.each([
    ['in WHERE', "SELECT id FROM events WHERE data = 'x'"],
    ['in ORDER BY', 'SELECT id FROM events ORDER BY data'],
  ])('still refuses it %s with 422 naming the column', async (_, body) => {
    const response = await query(acme, '/api/v2/events', SQL, body)
    expect(response.status).toBe(422)
    expect(await response.text()).toContain('column data cannot be')
  })
})
