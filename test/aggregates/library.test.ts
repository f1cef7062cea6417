import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { expectBadParam } from '../reads/helpers.ts'
import { create, type Entity } from '../rest/fixtures.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { compareValues, groupsOf, keysOf, type Row, walkGroups } from './expected.ts'

/** Aggregates follow the declaration: the contract's library, a schema other than the example. */

let server: TestServer
let t: Tenant
const authors: Entity[] = []
const books: Entity[] = []
const chapters: Entity[] = []

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  t = await server.tenant()
  for (const [name, country] of [
    ['Ann', 'FR'],
    ['Bob', null],
    ['Cy', 'DE'],
    ['Di', null],
    ['Ed', 'FR'],
  ] as const)
    authors.push(await create(t, '/api/v2/authors', { name, country }))
  for (let i = 0; i < 12; i++) {
    const book = await create(t, '/api/v2/books', {
      title: `title ${String.fromCharCode(97 + ((i * 7) % 12))}`,
      isbn: `978-${i}`,
      authorId: authors[i % 4]!.id,
      pages: 50 + ((i * 53) % 400),
    })
    books.push(book)
  }
  for (const book of books.slice(0, 3)) {
    const lent = await t.fetch(`/api/v2/books/${book.id}/lend`, { method: 'POST' })
    expect(lent.status).toBe(200)
    book.status = 'lent'
  }
  for (const number of [1, 2, 3, 3])
    chapters.push(await create(t, `/api/v2/books/${books[0]!.id}/chapters`, { title: 'c', number }))
  await create(t, `/api/v2/books/${books[1]!.id}/chapters`, { title: 'other', number: 9 })
})
afterAll(() => server.stop())

describe('GET /api/v2/books/aggregates', () => {
  const all = 'aggregate=count,sum(pages),avg(pages),min(pages),max(pages),min(title)'
  const fields = { sum: ['pages'], avg: ['pages'], min: ['pages', 'title'], max: ['pages'] }
  for (const groupBy of ['status', 'author_id', 'status,author_id', 'created_at:month', '']) {
    it(`group_by=${groupBy || '(none)'} matches the books counted in memory`, async () => {
      const path = `/api/v2/books/aggregates?${groupBy ? `group_by=${groupBy}&` : ''}${all}&limit=2`
      expect(await walkGroups(t, path)).toEqual(groupsOf(books, keysOf(groupBy), fields))
    })
  }

  it('follows an action: lent books move from one group to the other', async () => {
    const counts = async () =>
      Object.fromEntries(
        (await walkGroups(t, '/api/v2/books/aggregates?group_by=status')).map((g) => [g.status, g.count]),
      )
    expect(await counts()).toEqual({ available: 9, lent: 3 })
    const lent = await t.fetch(`/api/v2/books/${books[5]!.id}/lend`, { method: 'POST' })
    expect(lent.status).toBe(200)
    books[5]!.status = 'lent'
    expect(await counts()).toEqual({ available: 8, lent: 4 })
  })

  it('refuses what the declaration does not allow, naming the parameter', async () => {
    // A chapter's title is declared with neither filter nor sort; pages is no timestamp.
    await expectBadParam(
      await t.fetch(`/api/v2/books/${books[0]!.id}/chapters/aggregates?group_by=title`),
      'group_by',
    )
    await expectBadParam(await t.fetch('/api/v2/books/aggregates?group_by=pages:week'), 'group_by')
    await expectBadParam(await t.fetch('/api/v2/books/aggregates?aggregate=sum(title)'), 'aggregate')
    await expectBadParam(await t.fetch('/api/v2/books/aggregates?aggregate=max(isbn)'), 'aggregate')
  })
})

describe('GET /api/v2/authors/aggregates', () => {
  it('groups a nullable field, null the greatest value, in either direction across cursor pages', async () => {
    const expected = groupsOf(authors, keysOf('country'))
    expect(expected.at(-1)).toEqual({ country: null, count: 2 })
    expect(await walkGroups(t, '/api/v2/authors/aggregates?group_by=country&limit=1')).toEqual(expected)
    const descending = [...expected].sort((a, b) => compareValues(b.country, a.country))
    expect(await walkGroups(t, '/api/v2/authors/aggregates?group_by=country&sort=-country&limit=1')).toEqual(
      descending,
    )
    const q = await walkGroups(t, '/api/v2/authors/aggregates?group_by=country&q=ann')
    expect(q).toEqual([{ country: 'FR', count: 1 }])
  })
})

describe('GET /api/v2/books/{id}/chapters/aggregates', () => {
  it("counts one book's chapters", async () => {
    const path = `/api/v2/books/${books[0]!.id}/chapters/aggregates?group_by=number&aggregate=count,max(number)&sort=-count`
    const groups = groupsOf(chapters, keysOf('number'), { max: ['number'] }).sort(
      (a, b) => (b.count as number) - (a.count as number) || compareValues(a.number, b.number),
    )
    expect(await walkGroups(t, path)).toEqual(groups as Row[])
    expect(
      await walkGroups(t, `/api/v2/books/${books[0]!.id}/chapters/aggregates?aggregate=sum(number)`),
    ).toEqual([{ sum: { number: 9 } }])
  })
})
