import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { subscribe } from '../graphql/subscriptions.ts'
import { data, type Loose } from '../graphql/support.ts'
import { fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * GraphQL of a schema other than the example (the contract's library): types, connections,
 * relations both ways, mutations and the action, `node`, the search union and a subscription
 * receiving the action's event, all from the declaration.
 */

const schema = librarySchema()
let server: TestServer
let tenant: Tenant
let author: Loose
let book: Loose
let chapter: Loose

beforeAll(async () => {
  server = await startTestServer({ schema })
  tenant = await server.tenant()
  const made = fixtures(schema, tenant)
  author = await made.create('authors', { name: 'Ursula Le Guin' })
  book = await made.create('books', { title: 'The Dispossessed', authorId: author.id })
  chapter = await made.create('chapters', { title: 'Anarres', number: 1 })
})

afterAll(() => server?.stop())

const typeNames = async (kind: string) =>
  (await data(server, tenant, '{ __schema { types { name kind } } }')).__schema.types
    .filter((t: Loose) => t.kind === kind)
    .map((t: Loose) => t.name)

describe('the GraphQL schema of the library', () => {
  it.each([
    [
      'OBJECT',
      ['Author', 'Book', 'Chapter', 'AuthorConnection', 'BookConnection', 'ChapterConnection', 'BookEdge'],
    ],
    ['ENUM', ['BookStatus']],
    ['UNION', ['SearchResult']],
  ])('has the %s types %p', async (kind, names) => {
    expect(await typeNames(kind)).toEqual(expect.arrayContaining(names))
  })

  it('has no type of the built-in example', async () => {
    const names = await typeNames('OBJECT')
    for (const name of ['Order', 'Product', 'LineItem', 'Post', 'Comment', 'Address'])
      expect(names).not.toContain(name)
  })

  it.each([
    ['queryType', ['author', 'authors', 'book', 'books', 'chapter', 'chapters', 'node', 'nodes', 'search']],
    ['mutationType', ['createBook', 'updateBook', 'replaceBook', 'deleteBook', 'lendBook', 'createChapter']],
  ])('has the %s fields %p', async (root, names) => {
    const schemaType = (await data(server, tenant, `{ __schema { ${root} { fields { name } } } }`)).__schema[
      root
    ]
    expect(schemaType.fields.map((f: Loose) => f.name)).toEqual(expect.arrayContaining(names))
  })
})

describe('reading the library through GraphQL', () => {
  it('follows book.author, author.books and book.chapters', async () => {
    const got = await data(
      server,
      tenant,
      `query($id: ID!) { book(id: $id) { title status author { name books { totalCount nodes { id } } }
        chapters { nodes { title number } } } }`,
      { id: book.id },
    )
    expect(got.book).toEqual({
      title: 'The Dispossessed',
      status: 'available',
      author: { name: 'Ursula Le Guin', books: { totalCount: 1, nodes: [{ id: book.id }] } },
      chapters: { nodes: [{ title: 'Anarres', number: 1 }] },
    })
  })

  it('filters books by their enum and reference', async () => {
    const got = await data(
      server,
      tenant,
      'query($a: [ID!]) { books(status: available, authorId: $a) { totalCount pageInfo { hasNextPage } edges { node { id } } } }',
      { a: [author.id] },
    )
    expect(got.books).toEqual({
      totalCount: 1,
      pageInfo: { hasNextPage: false },
      edges: [{ node: { id: book.id } }],
    })
  })

  it.each([
    ['author', () => author, 'Author'],
    ['book', () => book, 'Book'],
    ['chapter', () => chapter, 'Chapter'],
  ])('fetches a %s by node(id)', async (_, record, typename) => {
    const got = await data(server, tenant, 'query($id: ID!) { node(id: $id) { __typename id } }', {
      id: record().id,
    })
    expect(got.node).toEqual({ __typename: typename, id: record().id })
  })

  it("unites the searchable authors, books, users and the service's OAuth clients in SearchResult", async () => {
    const got = await data(server, tenant, '{ __type(name: "SearchResult") { possibleTypes { name } } }')
    expect(got.__type.possibleTypes.map((t: Loose) => t.name).sort()).toEqual([
      'Author',
      'Book',
      'OauthClient',
      'User',
    ])
  })

  it.each([
    ['Dispossessed', [{ __typename: 'Book', title: 'The Dispossessed' }]],
    ['Guin', [{ __typename: 'Author', name: 'Ursula Le Guin' }]],
  ])('finds %p through search', async (q, nodes) => {
    const got = await data(
      server,
      tenant,
      'query($q: String!) { search(q: $q) { nodes { __typename ... on Book { title } ... on Author { name } } } }',
      { q },
    )
    expect(got.search.nodes).toEqual(nodes)
  })
})

describe('writing the library through GraphQL', () => {
  it('creates a book with createBook and lends it with lendBook, which a subscriber sees as book.lent', async () => {
    const subscriber = subscribe(server, 'ws', tenant.token, { types: ['book.created', 'book.lent'] })
    try {
      await Bun.sleep(200)
      const created = await data(
        server,
        tenant,
        'mutation($input: CreateBookInput!) { createBook(input: $input) { id status } }',
        { input: { title: 'Lavinia', isbn: `978-${Date.now() % 1e9}`, authorId: author.id, pages: 288 } },
      )
      expect(created.createBook.status).toBe('available')
      const lent = await data(server, tenant, 'mutation($id: ID!) { lendBook(id: $id) { id status } }', {
        id: created.createBook.id,
      })
      expect(lent.lendBook).toEqual({ id: created.createBook.id, status: 'lent' })
      const events = await subscriber.take(2)
      expect(events.map((e) => [e.type, e.resourceId])).toEqual([
        ['book.created', created.createBook.id],
        ['book.lent', created.createBook.id],
      ])
    } finally {
      await subscriber.close()
    }
  })
})
