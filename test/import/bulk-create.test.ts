import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { author, counts, importSchema, post } from './fixtures.ts'

const CSV = 'text/csv'
const NDJSON = 'application/x-ndjson'

let server: TestServer
let tenant: Tenant
let authorId: string

beforeAll(async () => {
  server = await startTestServer({ schema: importSchema() })
  tenant = await server.tenant()
  authorId = await author(tenant)
})
afterAll(() => server.stop())

type ErrorBody = { error: { code: string; message: string; details: { field: string; message: string }[] } }
const isbn = (() => {
  let n = 0
  return () => `978-${String(++n).padStart(6, '0')}`
})()

describe('POST /api/v2/books with text/csv', () => {
  it('creates every row in input order, each with its created event, and answers their ids', async () => {
    const before = await counts(server, tenant.orgId, 'books', 'books')
    const rows = ['Dune', 'Emma', '"Quoted, with comma"'].map(
      (t, i) => `${t},${isbn()},${authorId},${100 + i}`,
    )
    const response = await post(
      tenant,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\r\n${rows.join('\r\n')}\r\n`,
    )
    expect(response.status).toBe(201)
    const { data } = (await response.json()) as { data: { id: string }[] }
    expect(data).toHaveLength(3)
    const titles = []
    for (const { id } of data)
      titles.push(((await (await tenant.fetch(`/api/v2/books/${id}`)).json()) as { title: string }).title)
    expect(titles).toEqual(['Dune', 'Emma', 'Quoted, with comma'])
    expect(await counts(server, tenant.orgId, 'books', 'books')).toEqual({
      rows: before.rows + 3,
      events: before.events + 3,
    })
    const events = await server.sql.all<{ resource_id: string; type: string }>(
      'SELECT resource_id, type FROM events WHERE org_id = ? AND resource = ? ORDER BY created_at DESC, id DESC LIMIT 3',
      tenant.orgId,
      'books',
    )
    expect(events.map((e) => e.type)).toEqual(['book.created', 'book.created', 'book.created'])
    expect(new Set(events.map((e) => e.resource_id))).toEqual(new Set(data.map((d) => d.id)))
  })

  it('fills defaults for absent columns and empty cells of fields that are not nullable', async () => {
    const response = await post(
      tenant,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages,status\nA,${isbn()},${authorId},5,\n`,
    )
    expect(response.status).toBe(201)
    const id = ((await response.json()) as { data: { id: string }[] }).data[0]!.id
    const book = (await (await tenant.fetch(`/api/v2/books/${id}`)).json()) as { status: string }
    expect(book.status).toBe('available')
  })
})

describe('CSV cells typed by the declaration (gadgets: a field of every type)', () => {
  const header = 'name,note,code,count,active,kind,madeAt,meta,tags'
  const cases: [string, string, Record<string, unknown>][] = [
    [
      'every type',
      'Lamp,"a ""quoted"" note",L-1,7,false,large,2026-01-02T03:04:05.000Z,"{""w"":1}","[""a"",""b""]"',
      {
        note: 'a "quoted" note',
        code: 'L-1',
        count: 7,
        active: false,
        kind: 'large',
        madeAt: '2026-01-02T03:04:05.000Z',
        meta: { w: 1 },
        tags: ['a', 'b'],
      },
    ],
    ['booleans as 1 and 0, any case', 'Fan,,,0,TRUE,,,,', { count: 0, active: true, kind: 'small' }],
    ['1 is true', 'Fan,,,,1,,,,', { active: true }],
    [
      'empty cells: null when nullable, the default otherwise',
      'Cup,,,,,,,,',
      {
        note: null,
        code: null,
        count: null,
        active: true,
        kind: 'small',
        madeAt: null,
        meta: null,
        tags: null,
      },
    ],
    ['a quoted empty cell is the empty text', 'Pen,"",,,,,,,', { note: '' }],
    ['an integer with spaces and a sign', 'Box,, , +12 ,,,,,', { count: 12 }],
  ]
  for (const [name, row, expected] of cases) {
    it(name, async () => {
      const response = await post(tenant, '/api/v2/gadgets', CSV, `${header}\n${row}\n`)
      expect(response.status).toBe(201)
      const id = ((await response.json()) as { data: { id: string }[] }).data[0]!.id
      const gadget = await (await tenant.fetch(`/api/v2/gadgets/${id}`)).json()
      expect(gadget).toMatchObject(expected)
    })
  }
})

describe('failures name the row and the field and write nothing', () => {
  const good = () => `T,${isbn()},AUTHOR,10`
  const cases: [
    string,
    string,
    'text/csv' | 'application/x-ndjson',
    number,
    { field: string; message?: string },
  ][] = [
    [
      'an integer that is not one',
      `title,isbn,authorId,pages\n${good()}\nT,${isbn()},AUTHOR,ten\n`,
      CSV,
      422,
      { field: 'rows[1].pages', message: 'must be an integer' },
    ],
    [
      'a value under the minimum',
      `title,isbn,authorId,pages\n${good()}\n${good()}\nT,${isbn()},AUTHOR,0\n`,
      CSV,
      422,
      { field: 'rows[2].pages' },
    ],
    [
      'an enum value not declared',
      `title,isbn,authorId,pages,status\nT,${isbn()},AUTHOR,3,burnt\n`,
      CSV,
      422,
      { field: 'rows[0].status' },
    ],
    [
      'a missing required cell',
      `title,isbn,authorId,pages\nT,${isbn()},AUTHOR,\n`,
      CSV,
      422,
      { field: 'rows[0].pages', message: 'is required' },
    ],
    [
      'a reference to no record',
      `title,isbn,authorId,pages\n${good()}\nT,${isbn()},aut_01jd3v0m7qf8s9t2w4x6y8z0ab,3\n`,
      CSV,
      422,
      { field: 'rows[1].authorId' },
    ],
    [
      'a unique value twice in the file (the later row)',
      `title,isbn,authorId,pages\nT,dup-1,AUTHOR,3\n${good()}\nT,dup-1,AUTHOR,4\n`,
      CSV,
      409,
      { field: 'rows[2].isbn' },
    ],
    [
      'an unknown column',
      `title,isbn,authorId,pages,colour\n${good()},red\n`,
      CSV,
      422,
      { field: 'header.colour' },
    ],
    [
      'a read-only column',
      `id,title,isbn,authorId,pages\nbok_x,${good()}\n`,
      CSV,
      422,
      { field: 'header.id', message: 'column 1 is read-only' },
    ],
    [
      'a row with another number of cells',
      `title,isbn,authorId,pages\n${good()}\nT,${isbn()}\n`,
      CSV,
      400,
      { field: 'rows[1]' },
    ],
    [
      'an unclosed quote',
      `title,isbn,authorId,pages\n${good()}\n"T,${isbn()},AUTHOR,3\n`,
      CSV,
      400,
      { field: 'rows[1]' },
    ],
    [
      'a JSON line that does not parse',
      `{"title":"T","isbn":"${isbn()}","authorId":"AUTHOR","pages":2}\n\n{"title":\n`,
      NDJSON,
      400,
      { field: 'rows[1]' },
    ],
    [
      'a JSON line that is no object',
      `{"title":"T","isbn":"${isbn()}","authorId":"AUTHOR","pages":2}\n[1]\n`,
      NDJSON,
      422,
      { field: 'rows[1]', message: 'must be a JSON object' },
    ],
    [
      'an NDJSON row with an unknown field',
      `{"title":"T","isbn":"${isbn()}","authorId":"AUTHOR","pages":2,"x":1}\n`,
      NDJSON,
      422,
      { field: 'rows[0].x' },
    ],
  ]
  for (const [name, body, type, status, detail] of cases) {
    it(`${name}: ${status} naming ${detail.field}`, async () => {
      const before = await counts(server, tenant.orgId, 'books', 'books')
      const response = await post(tenant, '/api/v2/books', type, body.replaceAll('AUTHOR', authorId))
      expect(response.status).toBe(status)
      const { error } = (await response.json()) as ErrorBody
      expect(error.details).toContainEqual(detail.message ? detail : expect.objectContaining(detail))
      expect(await counts(server, tenant.orgId, 'books', 'books')).toEqual(before)
    })
  }

  it('409 naming the row whose unique value another record already holds', async () => {
    const good = () => `T,${isbn()},${authorId},10`
    const taken = isbn()
    expect(
      (await post(tenant, '/api/v2/books', CSV, `title,isbn,authorId,pages\nT,${taken},${authorId},3\n`))
        .status,
    ).toBe(201)
    const response = await post(
      tenant,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\n${good()}\nT,${taken},${authorId},3\n`,
    )
    expect(response.status).toBe(409)
    expect(((await response.json()) as ErrorBody).error.details).toEqual([
      { field: 'rows[1].isbn', message: 'is already taken in this organization' },
    ])
  })
})

describe('how many records one request takes', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => `Chapter ${i},${i + 1}`).join('\n')
  let bookId: string
  beforeAll(async () => {
    const response = await post(
      tenant,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\nLong,${isbn()},${authorId},900\n`,
    )
    bookId = ((await response.json()) as { data: { id: string }[] }).data[0]!.id
  })

  it('1,000 records in one request, nested under their parent', async () => {
    const response = await post(
      tenant,
      `/api/v2/books/${bookId}/chapters`,
      CSV,
      `title,number\n${rows(1000)}\n`,
    )
    expect(response.status).toBe(201)
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1000)
    const page = (await (
      await tenant.fetch(`/api/v2/books/${bookId}/chapters?limit=1&include_total=true`)
    ).json()) as {
      data: { bookId: string }[]
      pagination: { total: number }
    }
    expect(page.data[0]!.bookId).toBe(bookId)
  })

  it('1,001 records: 413 naming rows, nothing written', async () => {
    const before = await counts(server, tenant.orgId, 'chapters', 'chapters')
    const response = await post(
      tenant,
      `/api/v2/books/${bookId}/chapters`,
      CSV,
      `title,number\n${rows(1001)}\n`,
    )
    expect(response.status).toBe(413)
    expect(((await response.json()) as ErrorBody).error.details[0]!.field).toBe('rows')
    expect(await counts(server, tenant.orgId, 'chapters', 'chapters')).toEqual(before)
  })

  it('a body with a header and no row: 422', async () => {
    const response = await post(tenant, '/api/v2/authors', CSV, 'name\n')
    expect(response.status).toBe(422)
  })
})

describe('Idempotency-Key and validate_only', () => {
  it('replays the 201 for the same key and body, creating nothing twice', async () => {
    const body = `title,isbn,authorId,pages\nT,${isbn()},${authorId},3\nU,${isbn()},${authorId},4\n`
    const headers = { 'Idempotency-Key': `bulk-${crypto.randomUUID()}` }
    const first = await post(tenant, '/api/v2/books', CSV, body, headers)
    expect(first.status).toBe(201)
    const before = await counts(server, tenant.orgId, 'books', 'books')
    const again = await post(tenant, '/api/v2/books', CSV, body, headers)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(await first.json())
    expect(await counts(server, tenant.orgId, 'books', 'books')).toEqual(before)
    const other = await post(tenant, '/api/v2/books', CSV, `${body}V,${isbn()},${authorId},5\n`, headers)
    expect(other.status).toBe(422)
  })

  it('validate_only=true checks everything and writes nothing', async () => {
    const before = await counts(server, tenant.orgId, 'books', 'books')
    const body = `{"title":"T","isbn":"${isbn()}","authorId":"${authorId}","pages":2}\n{"title":"U","isbn":"${isbn()}","authorId":"${authorId}","pages":3}\n`
    const ok = await post(tenant, '/api/v2/books?validate_only=true', NDJSON, body)
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ data: [], validated: 2 })
    const bad = await post(
      tenant,
      '/api/v2/books?validate_only=true',
      NDJSON,
      `${body}{"title":"V","isbn":"x","authorId":"aut_01jd3v0m7qf8s9t2w4x6y8z0ab","pages":3}\n`,
    )
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as ErrorBody).error.details[0]!.field).toBe('rows[2].authorId')
    expect(await counts(server, tenant.orgId, 'books', 'books')).toEqual(before)
    expect((await post(tenant, '/api/v2/books?validate_only=yes', NDJSON, body)).status).toBe(400)
  })
})

describe('who may create', () => {
  it('403 without the write scope, nothing written', async () => {
    const reader = await server.tenant({ scope: ['read:books'] })
    const response = await post(
      reader,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\nT,${isbn()},${authorId},3\n`,
    )
    expect(response.status).toBe(403)
  })

  it("a reference to another organization's record is no record (422), and its parent is 403", async () => {
    const other = await server.tenant()
    const response = await post(
      other,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\nT,${isbn()},${authorId},3\n`,
    )
    expect(response.status).toBe(422)
    expect(((await response.json()) as ErrorBody).error.details[0]!.field).toBe('rows[0].authorId')
    const own = await post(
      tenant,
      '/api/v2/books',
      CSV,
      `title,isbn,authorId,pages\nT,${isbn()},${authorId},3\n`,
    )
    const bookId = ((await own.json()) as { data: { id: string }[] }).data[0]!.id
    const nested = await post(other, `/api/v2/books/${bookId}/chapters`, CSV, 'title,number\nOne,1\n')
    expect(nested.status).toBe(403)
  })

  it("403 naming the row that sets a privileged field (a user's role) without the delete scope", async () => {
    const writer = await server.tenant({ scope: ['read:users', 'write:users'] })
    const body = 'name,email,role\nAda,ada@bulk.example,member\nBob,bob@bulk.example,admin\n'
    const response = await post(writer, '/api/v2/users', CSV, body)
    expect(response.status).toBe(403)
    expect(((await response.json()) as ErrorBody).error.details[0]!.field).toBe('rows[1].role')
    expect(await server.sql.count('users', writer.orgId)).toBe(0)
  })

  it('a list read before the create shows the new records after it (no stale cached page)', async () => {
    const before = (await (await tenant.fetch('/api/v2/authors?limit=100')).json()) as { data: unknown[] }
    expect(
      (await post(tenant, '/api/v2/authors', NDJSON, '{"name":"Cached 1"}\n{"name":"Cached 2"}\n')).status,
    ).toBe(201)
    const after = (await (await tenant.fetch('/api/v2/authors?limit=100')).json()) as { data: unknown[] }
    expect(after.data.length).toBe(before.data.length + 2)
  })

  it('415 for a collection whose creates show a secret (webhook endpoints)', async () => {
    const response = await post(tenant, '/api/v2/webhook-endpoints', CSV, 'url\nhttps://example.com/hook\n')
    expect(response.status).toBe(415)
  })
})
