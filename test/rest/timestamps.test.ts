import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { importSchema } from '../import/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * A declared timestamp field (`gadgets.madeAt`) takes an RFC 3339 date-time and keeps the instant
 * in UTC, as `createdAt` is kept: what `Date.parse` would also read (`0`, `March 7`) is 422.
 */

let server: TestServer
let tenant: Tenant
beforeAll(async () => {
  server = await startTestServer({ schema: importSchema() })
  tenant = await server.tenant()
})
afterAll(async () => await server.stop())

const create = (madeAt: unknown) =>
  tenant.fetch('/api/v2/gadgets', { method: 'POST', json: { name: 'g', madeAt } })

describe('a timestamp field', () => {
  it.each([
    ['2026-11-27T09:30:00Z', '2026-11-27T09:30:00.000Z'],
    ['2026-11-27T09:30:00.5z', '2026-11-27T09:30:00.500Z'],
    ['2026-03-01T01:00:00+02:00', '2026-02-28T23:00:00.000Z'],
    ['2024-02-29t23:59:59-00:30', '2024-03-01T00:29:59.000Z'],
  ])('takes %s and keeps %s', async (given, kept) => {
    const response = await create(given)
    expect(response.status).toBe(201)
    const { id } = (await response.json()) as { id: string }
    const read = (await (await tenant.fetch(`/api/v2/gadgets/${id}`)).json()) as { madeAt: string }
    expect(read.madeAt).toBe(kept)
  })

  it.each([
    '0',
    '1',
    'March 7, 2026',
    '2026-11-27',
    '2026-11-27 09:30:00Z',
    '2026-11-27T09:30Z',
    '2026-11-27T09:30:00',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-27T24:00:00Z',
    '2026-11-27T09:30:00+25:00',
  ])('refuses %p with 422 naming the field', async (given) => {
    const response = await create(given)
    expect(response.status).toBe(422)
    const { error } = (await response.json()) as { error: { details: { field: string; message: string }[] } }
    expect(error.details).toEqual([{ field: 'madeAt', message: expect.stringContaining('RFC 3339') }])
  })

  it('groups by the UTC day of the instant, whatever offset it was given in', async () => {
    const other = await server.tenant()
    for (const madeAt of ['2026-03-01T01:00:00+02:00', '2026-03-01T01:00:00Z', '2026-02-28T18:00:00-05:00'])
      expect(
        (await other.fetch('/api/v2/gadgets', { method: 'POST', json: { name: 'g', madeAt } })).status,
      ).toBe(201)
    const response = await other.fetch('/api/v2/gadgets/aggregates?group_by=made_at:day')
    expect(response.status).toBe(200)
    const { data } = (await response.json()) as { data: { madeAt: string | null; count: number }[] }
    expect(data).toEqual([
      { madeAt: '2026-02-28T00:00:00.000Z', count: 2 },
      { madeAt: '2026-03-01T00:00:00.000Z', count: 1 },
    ])
  })
})
