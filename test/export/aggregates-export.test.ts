import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createOrder } from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { CSV, csvRows, NDJSON, walkCsv } from './support.ts'

/**
 * Aggregates answer as CSV and NDJSON as lists do (docs/bulk.md): columns from the query (the
 * group keys, `count`, `sum.amount`), never from the data; Link to the next page of groups.
 */

let server: TestServer
let acme: Tenant
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  for (let i = 0; i < 15; i++)
    await createOrder(acme, { status: STATUSES[i % 5], amount: 100 * (i + 1), currency: 'EUR' })
})
afterAll(async () => await server.stop())

const PATH = '/api/v2/orders/aggregates?group_by=status&aggregate=count,sum(amount),avg(amount)'

describe('aggregates as CSV and NDJSON', () => {
  it('answers the JSON groups as CSV rows, in the columns the query names', async () => {
    const json = (await (await acme.fetch(PATH)).json()) as {
      data: { status: string; count: number; sum: { amount: number }; avg: { amount: number } }[]
    }
    const response = await acme.fetch(PATH, { headers: { Accept: 'text/csv' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(CSV)
    expect(response.headers.get('vary')).toContain('Accept')
    const [header, ...rows] = csvRows(await response.text())
    expect(header).toEqual(['status', 'count', 'sum.amount', 'avg.amount'])
    expect(rows).toEqual(
      json.data.map((g) => [g.status, String(g.count), String(g.sum.amount), String(g.avg.amount)]),
    )
  })

  it('answers one group a line as NDJSON', async () => {
    const response = await acme.fetch(PATH, { headers: { Accept: 'application/x-ndjson' } })
    expect(response.headers.get('content-type')).toBe(NDJSON)
    const lines = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((g) => g.status).sort()).toEqual([...STATUSES].sort())
    expect(lines.every((g) => g.count === 3)).toBe(true)
  })

  it('links to the next page of groups until every group is out once', async () => {
    const { headers, rows } = await walkCsv(acme, `${PATH}&limit=2`)
    expect(headers.length).toBe(3)
    expect(new Set(headers.map((h) => h.join()))).toEqual(new Set(['status,count,sum.amount,avg.amount']))
    expect(rows.map((r) => r[0]).sort()).toEqual([...STATUSES].sort())
  })

  it('has a header on a page with no group, and its own ETag per format', async () => {
    const empty = await acme.fetch(`${PATH}&status=paid&amount_gte=99999999`, {
      headers: { Accept: 'text/csv' },
    })
    expect(csvRows(await empty.text())).toEqual([['status', 'count', 'sum.amount', 'avg.amount']])
    const csv = await acme.fetch(PATH, { headers: { Accept: 'text/csv' } })
    const json = await acme.fetch(PATH)
    expect(csv.headers.get('etag')).not.toBe(json.headers.get('etag'))
    const again = await acme.fetch(PATH, {
      headers: { Accept: 'text/csv', 'If-None-Match': csv.headers.get('etag')! },
    })
    expect(again.status).toBe(304)
  })

  it('answers a QUERY form body as CSV too', async () => {
    const response = await acme.fetch('/api/v2/orders/aggregates', {
      method: 'QUERY',
      headers: { Accept: 'text/csv', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'group_by=status&aggregate=count',
    })
    expect(response.status).toBe(200)
    const [header, ...rows] = csvRows(await response.text())
    expect(header).toEqual(['status', 'count'])
    expect(rows.length).toBe(5)
  })

  it('is 406 for an Accept it cannot answer', async () => {
    const response = await acme.fetch(PATH, { headers: { Accept: 'application/xml' } })
    expect(response.status).toBe(406)
  })
})
