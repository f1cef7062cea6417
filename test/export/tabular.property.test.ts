import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { negotiate } from '../../server/http/accept.ts'
import { csvText } from '../../server/http/tabular.ts'
import { schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { create } from '../rest/fixtures.ts'
import { LIBRARY } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/** PROPERTY_SEED replays a run; fast-check prints the seed of a failure. */
const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))

/** Characters CSV and spreadsheets treat specially, among ordinary ones. */
const SPECIAL = [
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\n',
  '\r\n',
  ',',
  '"',
  "'",
  '\u0000',
  '\u001b',
  '\uFF1D',
  ' ',
  'a',
  'é',
  '🚀',
]
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.tuple(fc.constantFrom('=', '+', '-', '@', "'"), fc.string({ maxLength: 8 })).map(([a, b]) => a + b),
)

/** docs/bulk.md: a text cell that starts with an apostrophe had one put there; take it off. */
const readBack = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell)
const GUARDED = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/

const parseCsv = (csv: string) => parse(csv, { record_delimiter: '\r\n' }) as string[][]

describe('csvText against csv-parse', () => {
  it('carries any text through a CSV export and back, by the documented rule', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), (values) => {
        const csv = csvText(
          ['v'],
          values.map((v) => ({ v })),
        )
        const [header, ...rows] = parseCsv(csv)
        expect(header).toEqual(['v'])
        expect(rows.map((row) => readBack(row[0]!))).toEqual(values)
        // No cell a spreadsheet reads starts a formula.
        for (const [cell] of rows) expect(GUARDED.test(cell!)).toBe(false)
      }),
      { seed, numRuns: 500 },
    )
  })

  it('writes numbers as numbers, a negative one with its sign and no guard', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => {
        expect(parseCsv(csvText(['n'], [{ n }]))[1]).toEqual([String(n)])
      }),
      { seed },
    )
  })
})

describe('negotiate (the Accept header)', () => {
  const OFFERED = ['application/json', 'text/csv', 'application/x-ndjson']

  it('never throws and answers one of the offered types or null, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const chosen = negotiate(header, OFFERED)
        expect(chosen === null || OFFERED.includes(chosen)).toBe(true)
      }),
      { seed, numRuns: 1000 },
    )
  })

  it('picks the offered type weighed highest, the earlier one on a tie, none when all weigh 0', () => {
    const weight = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000)
    fc.assert(
      fc.property(fc.tuple(weight, weight, weight), fc.boolean(), (weights, spaced) => {
        const sep = spaced ? ' ; ' : ';'
        const header = OFFERED.map((type, i) => `${type}${sep}q=${weights[i]}`).join(',')
        const best = Math.max(...weights)
        const expected = best === 0 ? null : OFFERED[weights.indexOf(best)]
        expect(negotiate(header, OFFERED)).toBe(expected!)
      }),
      { seed },
    )
  })
})

describe('a CSV export of records written through the API', () => {
  let server: TestServer
  let tenant: Tenant
  beforeAll(async () => {
    server = await startTestServer({ schema: schemaFromDeclaration(LIBRARY) })
    tenant = await server.tenant()
  })
  afterAll(() => server.stop())

  it('gives back every name the API stored, by the documented rule', async () => {
    // The API refuses NUL in text (422), so no record holds one.
    const stored = SPECIAL.filter((c) => c !== '\u0000')
    const name = fc.string({ unit: fc.constantFrom(...stored), minLength: 1, maxLength: 30 })
    await fc.assert(
      fc.asyncProperty(name, async (value) => {
        const author = await create(tenant, '/api/v2/authors', { name: value })
        const response = await tenant.fetch('/api/v2/authors?limit=1&fields=name', {
          headers: { Accept: 'text/csv' },
        })
        const [, row] = parseCsv(await response.text())
        expect(row![0]).toBe(author.id)
        expect(readBack(row![1]!)).toBe(author.name as string)
      }),
      { seed, numRuns: 25 },
    )
  })
})
