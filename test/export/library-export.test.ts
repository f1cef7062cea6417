import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { create, type Entity, type ListBody, readJson } from '../rest/fixtures.ts'
import { LIBRARY } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { CSV, csvRows, walkCsv } from './support.ts'

/** The contract's library, and notes with every kind of field the library lacks. */
const DECLARATION: SchemaDeclaration = {
  resources: {
    ...LIBRARY.resources,
    notes: {
      singular: 'note',
      prefix: 'nte',
      fields: {
        text: { type: 'text', max: 2000 },
        tags: { type: 'list', maxItems: 5, maxLength: 40 },
        meta: { type: 'json', nullable: true },
        pinned: { type: 'boolean', default: false, filter: 'eq' },
        due: { type: 'timestamp', nullable: true },
        score: { type: 'integer', nullable: true, min: -1000 },
      },
    },
  },
}

let server: TestServer
let library: Tenant
const books: Entity[] = []
let author: Entity

/** Texts a CSV must carry whole: every character RFC 4180 quotes, formulas, unicode. */
const TEXTS = [
  'plain',
  'comma, inside',
  'a "quoted" word',
  'line\nbreak',
  'carriage\rreturn',
  'both\r\nends',
  '=1+1',
  '+33 1 23',
  '-2-3',
  '@SUM(A1)',
  '\tindented',
  "'apostrophe",
  'Ünïcødé — 日本語 🚀',
  ' padded ',
]

beforeAll(async () => {
  server = await startTestServer({ schema: schemaFromDeclaration(DECLARATION) })
  library = await server.tenant()
  author = await create(library, '/api/v2/authors', { name: 'Ursula, "K." Le Guin', country: null })
  for (const [i, title] of TEXTS.entries()) {
    books.push(
      await create(library, '/api/v2/books', {
        title,
        isbn: `978-0-00-${String(i).padStart(6, '0')}`,
        authorId: author.id,
        pages: i + 1,
      }),
    )
  }
  await create(library, '/api/v2/notes', {
    text: '-',
    tags: ['a,b', '"c"'],
    meta: { n: -5, s: '=x' },
    score: -5,
  })
  await create(library, '/api/v2/notes', {
    text: 'x',
    tags: [],
    meta: null,
    pinned: true,
    due: '2026-01-02T03:04:05.000Z',
  })
})
afterAll(() => server.stop())

/** A cell as docs/bulk.md says it is written, worked out here from the JSON value on its own. */
function expectedCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string')
    return /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20']/.test(value) ? `'${value}` : value
  if (typeof value === 'boolean' || typeof value === 'number') return String(value)
  return JSON.stringify(value)
}

const at = (record: unknown, column: string) =>
  column
    .split('.')
    .reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      record,
    )

/** Python's csv module reading `text`: its rows, as it sees them. */
async function pythonRows(text: string): Promise<string[][]> {
  const reader =
    "import csv,sys,json; print(json.dumps(list(csv.reader(open(0, newline='', encoding='utf-8'), strict=True))))"
  const child = Bun.spawn(['python3', '-c', reader], {
    stdin: new TextEncoder().encode(text),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`python3: ${err}`)
  return JSON.parse(out) as string[][]
}

describe('CSV export of a declared schema (the library)', () => {
  it('is read by Python’s csv module exactly as the JSON list says, cell by cell', async () => {
    const path = '/api/v2/books?limit=100&expand=author'
    const json = await readJson<ListBody>(await library.fetch(path))
    const response = await library.fetch(path, { headers: { Accept: 'text/csv' } })
    expect(response.headers.get('content-type')).toBe(CSV)
    const [header, ...rows] = await pythonRows(await response.text())
    expect(header).toEqual([
      'id',
      'title',
      'isbn',
      'authorId',
      'pages',
      'status',
      'createdAt',
      'updatedAt',
      'author.id',
      'author.name',
      'author.country',
      'author.createdAt',
      'author.updatedAt',
    ])
    expect(rows.length).toBe(books.length)
    rows.forEach((row, i) => {
      expect(row).toEqual(header!.map((column) => expectedCell(at(json.data[i], column))))
    })
  })

  const quoting: { text: string; cell: string }[] = [
    { text: 'plain', cell: 'plain' },
    { text: 'comma, inside', cell: '"comma, inside"' },
    { text: 'a "quoted" word', cell: '"a ""quoted"" word"' },
    { text: 'line\nbreak', cell: '"line\nbreak"' },
    { text: 'carriage\rreturn', cell: '"carriage\rreturn"' },
    { text: 'both\r\nends', cell: '"both\r\nends"' },
    { text: '=1+1', cell: "'=1+1" },
    { text: '+33 1 23', cell: "'+33 1 23" },
    { text: '-2-3', cell: "'-2-3" },
    { text: '@SUM(A1)', cell: "'@SUM(A1)" },
    { text: '\tindented', cell: "'\tindented" },
    { text: "'apostrophe", cell: "''apostrophe" },
    { text: 'Ünïcødé — 日本語 🚀', cell: 'Ünïcødé — 日本語 🚀' },
    { text: ' padded ', cell: ' padded ' },
  ]
  for (const { text, cell } of quoting) {
    it(`writes the title ${JSON.stringify(text)} as ${JSON.stringify(cell)}`, async () => {
      const book = books.find((b) => b.title === text)!
      const response = await library.fetch(`/api/v2/books?isbn=${book.isbn}&fields=title`, {
        headers: { Accept: 'text/csv' },
      })
      expect(await response.text()).toBe(`id,title\r\n${book.id},${cell}\r\n`)
    })
  }

  it('writes lists and JSON as JSON text, numbers unguarded, null empty, timestamps as sent', async () => {
    const response = await library.fetch('/api/v2/notes?sort=created_at', { headers: { Accept: 'text/csv' } })
    const [header, first, second] = csvRows(await response.text())
    expect(header).toEqual(['id', 'text', 'tags', 'meta', 'pinned', 'due', 'score', 'createdAt', 'updatedAt'])
    expect(first!.slice(1, 7)).toEqual(["'-", '["a,b","\\"c\\""]', '{"n":-5,"s":"=x"}', 'false', '', '-5'])
    expect(second!.slice(1, 7)).toEqual(['x', '[]', '', 'true', '2026-01-02T03:04:05.000Z', ''])
  })

  it('exports a nested collection and walks its pages', async () => {
    const book = books[0]!
    for (let n = 1; n <= 5; n++)
      await create(library, `/api/v2/books/${book.id}/chapters`, { title: `Ch, ${n}`, number: n })
    const { headers, rows } = await walkCsv(library, `/api/v2/books/${book.id}/chapters?limit=2&sort=number`)
    expect(headers[0]).toEqual(['id', 'bookId', 'title', 'number', 'createdAt', 'updatedAt'])
    expect(rows.map((r) => [r[2], r[3]])).toEqual([1, 2, 3, 4, 5].map((n) => [`Ch, ${n}`, String(n)]))
  })

  it('answers NDJSON with the records of the JSON list', async () => {
    const json = await readJson<ListBody>(await library.fetch('/api/v2/authors'))
    const response = await library.fetch('/api/v2/authors', { headers: { Accept: 'application/x-ndjson' } })
    const lines = (await response.text()).split('\n')
    expect(lines.pop()).toBe('')
    expect(lines.map((l) => JSON.parse(l))).toEqual(json.data)
  })
})
