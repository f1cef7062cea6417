/**
 * Property tests of what parses client input on the way in: CSV cells typed by the declaration and
 * whole bodies on a real server, and the CLI's cutting of a file into records. A failure prints its
 * seed; PROPERTY_SEED=N replays it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { progressLine } from '../../cli/import/progress.ts'
import { type InputFormat, RecordSplitter } from '../../cli/import/records.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { importSchema, post } from './fixtures.ts'

const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
const quote = (cell: string) => `"${cell.replaceAll('"', '""')}"`

let server: TestServer
let tenant: Tenant

beforeAll(async () => {
  server = await startTestServer({ schema: importSchema() })
  tenant = await server.tenant()
})
afterAll(() => server.stop())

/** Cells shaped like each type's values, and anything at all. */
const cell = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom('true', 'FALSE', '1', '0', 'yes', ' 12 ', '1.5', '1e3', '', 'small', 'large', 'huge'),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc.array(fc.string({ maxLength: 25 }), { maxLength: 6 }).map((v) => JSON.stringify(v)),
)
const FIELDS = ['note', 'count', 'active', 'kind', 'madeAt', 'meta', 'tags'] as const

/** What a created gadget's field shows for the cell it was given, when the cell was valid. */
function expected(field: (typeof FIELDS)[number], text: string): unknown {
  switch (field) {
    case 'note':
      return text
    case 'count':
      return text.trim() === '' ? null : Number(text.trim())
    case 'active':
      return text.trim() === '' ? true : ['true', '1'].includes(text.trim().toLowerCase())
    case 'kind':
      return text === '' ? 'small' : text
    case 'madeAt':
      // As a JSON create stores it: the instant given, in UTC (the date-time check is the create's own).
      return text === '' ? null : new Date(text).toISOString()
    default:
      return text === '' ? null : JSON.parse(text)
  }
}

describe('CSV cells on POST /api/v2/gadgets (property)', () => {
  it('a cell of any text is its field typed, or 422 naming its row and field; never another answer', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FIELDS),
        cell,
        fc.integer({ min: 0, max: 3 }),
        async (field, text, row) => {
          const good = Array.from({ length: row }, () => `${quote(`G${++n}`)},""`)
          const body = `name,${field}\n${[...good, `"X",${quote(text)}`].join('\n')}\n`
          const response = await post(tenant, '/api/v2/gadgets', 'text/csv', body)
          if (response.status === 201) {
            const id = ((await response.json()) as { data: { id: string }[] }).data[row]!.id
            const gadget = (await (await tenant.fetch(`/api/v2/gadgets/${id}`)).json()) as Record<
              string,
              unknown
            >
            expect(gadget[field]).toEqual(expected(field, text))
            return
          }
          expect(response.status).toBe(422)
          const { error } = (await response.json()) as { error: { details: { field: string }[] } }
          expect(error.details.length).toBeGreaterThan(0)
          for (const detail of error.details) expect(detail.field).toBe(`rows[${row}].${field}`)
        },
      ),
      { seed, numRuns: 150 },
    )
  })

  it('bodies of any bytes answer 201, 400, 409, 413 or 422, never 500', async () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((bytes) => new TextDecoder().decode(bytes)),
      fc
        .array(fc.array(fc.oneof(cell, fc.constantFrom('"', '\n', ',', '\r\n', 'name')), { maxLength: 5 }), {
          maxLength: 5,
        })
        .map((rows) => rows.map((cells) => cells.join(',')).join('\n')),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('text/csv', 'application/x-ndjson') as fc.Arbitrary<'text/csv'>,
        body,
        async (type, text) => {
          const response = await post(tenant, '/api/v2/gadgets', type, text)
          expect([201, 400, 409, 413, 422]).toContain(response.status)
          await response.body?.cancel()
        },
      ),
      { seed, numRuns: 150 },
    )
  })
})

describe("api import's cutting of a file into records (property)", () => {
  const cells = fc.array(
    fc.string({ maxLength: 8, unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ') }),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  it('finds every CSV record, however the file arrives in pieces, with the line it starts on', () => {
    fc.assert(
      fc.property(
        fc.array(cells, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (rows, size, crlf) => {
          const texts = rows.map((r) => r.map(quote).join(','))
          const file = texts.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n')
          const splitter = new RecordSplitter('csv' as InputFormat)
          const found = []
          for (let i = 0; i < file.length; i += size) found.push(...splitter.push(file.slice(i, i + size)))
          found.push(...splitter.end())
          expect(found.map((r) => r.text)).toEqual(texts)
          let line = 1
          for (const [i, record] of found.entries()) {
            expect(record.line).toBe(line)
            line += texts[i]!.split('\n').length
          }
        },
      ),
      { seed, numRuns: 300 },
    )
  })

  it('skips blank NDJSON lines and keeps their place in the line count', () => {
    const splitter = new RecordSplitter('ndjson')
    const found = [
      ...splitter.push('\uFEFF{"a":1}\n\n  \n{"b":'),
      ...splitter.push('2}\r\n'),
      ...splitter.end(),
    ]
    expect(found).toEqual([
      { text: '{"a":1}', line: 1 },
      { text: '{"b":2}', line: 4 },
    ])
  })
})

describe('the progress line', () => {
  const tally = { created: 1500, already: 500, validated: 0, chunks: 4, startedMs: 0 }
  it('shows a bar of the bytes read, the records, the rate and the time left', () => {
    expect(progressLine({ ...tally, bytes: 250, totalBytes: 1000 }, 2000, 80)).toBe(
      '[#########............................] 2,000 records  1,000/s  25%  00:06 left',
    )
  })
  it('shows the time spent when the size is unknown (standard input)', () => {
    expect(progressLine({ ...tally, bytes: 250, totalBytes: null }, 65_000, 80)).toBe(
      ' 2,000 records  31/s  01:05',
    )
  })
})
