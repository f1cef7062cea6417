import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Loose } from '../graphql/support.ts'
import { FORM, JSON_TYPE, JSONPATH, query, SQL } from '../query-method/support.ts'
import { fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * Reads of the contract's library, all from the declaration: QUERY with each of its four bodies
 * (on a collection, a nested one and /search), /search across authors and books, `fields` and
 * `expand`, and the QUERY examples the OpenAPI document shows, which run as they are.
 */

const schema = librarySchema()
let server: TestServer
let tenant: Tenant
const ids: Record<string, string> = {}

beforeAll(async () => {
  server = await startTestServer({ schema })
  tenant = await server.tenant()
  const made = fixtures(schema, tenant)
  const leGuin = await made.create('authors', { name: 'Ursula Le Guin', country: 'US' })
  const lem = await made.create('authors', { name: 'Stanisław Lem', country: 'PL' })
  const dispossessed = await made.create('books', {
    title: 'The Dispossessed',
    authorId: leGuin.id,
    pages: 387,
  })
  const solaris = await made.create('books', { title: 'Solaris', authorId: lem.id, pages: 204 })
  const lent = await tenant.fetch(`/api/v2/books/${solaris.id}/lend`, { method: 'POST' })
  expect(lent.status).toBe(200)
  const chapter = await tenant.fetch(`/api/v2/books/${dispossessed.id}/chapters`, {
    method: 'POST',
    json: { title: 'Anarres', number: 1 },
  })
  expect(chapter.status).toBe(201)
  Object.assign(ids, { leGuin: leGuin.id, lem: lem.id, dispossessed: dispossessed.id, solaris: solaris.id })
})

afterAll(() => server?.stop())

async function page(path: string, type: string, body: string): Promise<Loose[]> {
  const response = await query(tenant, path, type, body)
  expect([body, response.status]).toEqual([body, 200])
  return ((await response.json()) as { data: Loose[] }).data
}

describe('QUERY on the library', () => {
  it.each([
    ['/api/v2/books', SQL, "SELECT title FROM books WHERE status = 'lent'", [{ title: 'Solaris' }]],
    [
      '/api/v2/books',
      SQL,
      'SELECT title FROM books WHERE pages >= 300 ORDER BY title',
      [{ title: 'The Dispossessed' }],
    ],
    ['/api/v2/books', JSONPATH, "$[?@.status == 'available']", [{ title: 'The Dispossessed' }]],
    ['/api/v2/books', JSON_TYPE, '{"status": "lent", "fields": "title"}', [{ title: 'Solaris' }]],
    ['/api/v2/books', FORM, 'pages_lte=300&fields=title', [{ title: 'Solaris' }]],
    ['/api/v1/search', SQL, "SELECT name FROM authors WHERE country = 'PL'", [{ name: 'Stanisław Lem' }]],
    ['/api/v1/search', JSONPATH, '$.books[?@.pages < 300]', [{ title: 'Solaris' }]],
  ])('QUERY %s (%s) %s', async (path, type, body, expected) => {
    const data = await page(path, type, body)
    expect(data.map(({ title, name }) => (title === undefined ? { name } : { title }))).toEqual(expected)
  })

  it('QUERY on the chapters nested under a book', async () => {
    const data = await page(
      `/api/v2/books/${ids.dispossessed}/chapters`,
      SQL,
      'SELECT title, number FROM chapters',
    )
    expect(data.map(({ title, number }) => ({ title, number }))).toEqual([{ title: 'Anarres', number: 1 }])
  })
})

describe('/api/v1/search across the library', () => {
  it.each([
    ['Solaris', [['books', 'solaris']]],
    ['Lem', [['authors', 'lem']]],
    ['Dispossessed Le Guin', []],
  ])('answers q=%p with %p (every word in one record)', async (q, expected) => {
    const response = await tenant.fetch(`/api/v1/search?q=${encodeURIComponent(q)}`)
    expect(response.status).toBe(200)
    const { data } = (await response.json()) as { data: { collection: string; record: Loose }[] }
    expect(data.map((hit) => [hit.collection, hit.record.id])).toEqual(expected.map(([c, k]) => [c, ids[k!]]))
  })

  it('finds a word of an author and of a book in both collections', async () => {
    const made = fixtures(schema, tenant)
    const author = await made.create('authors', { name: 'Ray Bradbury' })
    const book = await made.create('books', { title: 'Bradbury Stories', authorId: author.id })
    const { data } = (await (await tenant.fetch('/api/v1/search?q=Bradbury')).json()) as Loose
    expect(data.map((hit: Loose) => [hit.collection, hit.record.id])).toEqual([
      ['books', book.id],
      ['authors', author.id],
    ])
  })
})

describe('fields and expand on the library', () => {
  it.each([
    ['one book', () => `/api/v2/books/${ids.solaris}?fields=title,author&expand=author`, (b: Loose) => b],
    [
      'a list',
      () => `/api/v2/books?author_id=${ids.lem}&fields=title,author&expand=author`,
      (b: Loose) => b.data[0],
    ],
  ])('expands the author in %s of books', async (_, path, first) => {
    const response = await tenant.fetch(path())
    expect(response.status).toBe(200)
    const book = first(await response.json())
    expect(Object.keys(book).sort()).toEqual(['author', 'id', 'title'])
    expect(book.author).toMatchObject({ id: ids.lem, name: 'Stanisław Lem', country: 'PL' })
  })

  it('expands a book’s chapters as their first page', async () => {
    const response = await tenant.fetch(`/api/v2/books/${ids.dispossessed}?fields=title&expand=chapters`)
    expect(response.status).toBe(200)
    const book = (await response.json()) as Loose
    expect(book.chapters.data.map((c: Loose) => c.title)).toEqual(['Anarres'])
  })

  it('refuses to expand what books do not have, naming expand', async () => {
    const response = await tenant.fetch(`/api/v2/books/${ids.solaris}?expand=order`)
    expect(response.status).toBe(400)
    const body = (await response.json()) as Loose
    expect(body.error.details.map((d: Loose) => d.field)).toEqual(['expand'])
  })
})

describe('the QUERY examples of the OpenAPI document', () => {
  it.each([['/api/v2/search'], ['/api/v2/books'], ['/api/v2/books/{parentId}/chapters']])(
    'run against the library as they are shown on %s',
    async (path) => {
      const document = (await (await server.fetch('/api/v2/openapi.json')).json()) as Loose
      const content = document.paths[path].query.requestBody.content as Record<string, { example: unknown }>
      for (const [type, { example }] of Object.entries(content)) {
        const body =
          type === FORM
            ? new URLSearchParams(example as Record<string, string>).toString()
            : type === JSON_TYPE
              ? JSON.stringify(example)
              : String(example)
        const response = await query(tenant, path.replace('{parentId}', ids.dispossessed!), type, body)
        expect([type, body, response.status]).toEqual([type, body, 200])
      }
    },
  )
})
