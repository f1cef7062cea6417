/**
 * Replicas still running the previous schema file while another process applies a change
 * (contract, "Several replicas"; docs/schema.md, "Several replicas"). Two servers of the
 * library on one database (on PostgreSQL two replicas, on SQLite two servers on one file), one of
 * them an `api-server serve --schema` process of its own, both without a response cache so that
 * every read reaches the database; `api-server schema apply` in another process adds a nullable
 * field, a field with a default, a filter, a searched field and a collection. The old servers
 * answer every read and write of the old shape while and after it is applied; a server of the new
 * file reads the new fields. A field removed under them makes the old servers answer that
 * collection's requests with a 500 in the contract's shape and a log line, and nothing else is
 * lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { runAdmin, type ServeProcess, startServe } from '../admin/run.ts'
import { onPostgres } from '../support/backend.ts'
import { LIBRARY, librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

const dir = mkdtempSync(join(tmpdir(), 'api-replica-change-'))

/** The library with every kind of additive change at once. */
function addedTo(library: SchemaDeclaration): SchemaDeclaration {
  const next = structuredClone(library)
  const books = next.resources.books!
  books.fields.subtitle = { type: 'text', max: 200, nullable: true, search: true }
  books.fields.edition = { type: 'integer', min: 1, default: 1, filter: 'eq+range' }
  next.resources.chapters!.fields.number!.filter = 'eq'
  next.resources.reviews = {
    singular: 'review',
    prefix: 'rev',
    fields: {
      bookId: { type: 'reference', to: 'books', filter: 'eq' },
      stars: { type: 'integer', min: 1, max: 5 },
    },
  }
  return next
}

const ADDED = addedTo(LIBRARY)
/** The added file without the authors' country: a change that loses data. */
const REMOVED = structuredClone(ADDED)
delete REMOVED.resources.authors!.fields.country

function schemaFile(name: string, declaration: SchemaDeclaration): string {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(declaration))
  return file
}

describe('replicas of the previous schema while a change is applied', () => {
  let first: TestServer
  /** A replica of its own process, running `api-server serve --schema` of the library's file. */
  let second: ServeProcess
  let added: RunningServer | undefined
  let tenant: Tenant
  let authorId: string
  let bookId: string
  /** What the in-process servers of the next files log (errors only). */
  const logged: string[] = []
  /** The error lines of every server still running the library. */
  const errorsOfOld = () =>
    second
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"level":"error"'))

  const replica = (schema: Schema) =>
    serve({
      host: '127.0.0.1',
      port: 0,
      db: first.dbPath,
      baseUrl: first.url,
      rateLimit: 1_000_000,
      cacheMb: 0,
      schema,
      logger: createLogger('error', (line) => logged.push(line)),
      ...(onPostgres && process.env.API_TEST_REDIS_URL ? { redis: process.env.API_TEST_REDIS_URL } : {}),
    })
  const through = (base: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers)
    headers.set('Authorization', `Bearer ${tenant.token}`)
    if (init.json !== undefined) headers.set('Content-Type', 'application/json')
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body
    return fetch(`${base}${path}`, { ...init, headers, body })
  }
  const json = async (response: Response, status: number) => {
    const text = await response.text()
    expect(`${response.status} ${text}`).toStartWith(`${status} `)
    return JSON.parse(text)
  }
  let isbns = 0
  const isbn = () => `978-0-00-${String(++isbns).padStart(6, '0')}-0`

  /** Every read of the old shape through `base`, each answer's status (a fresh query each round). */
  const reads = async (base: string, round: number): Promise<string[]> => {
    const graphql = through(base, '/graphql', {
      method: 'POST',
      json: { query: `{ books(first: ${1 + (round % 50)}) { nodes { id title status } } }` },
    })
    const answers = await Promise.all([
      through(base, `/api/v1/books?limit=${1 + (round % 50)}`),
      through(base, `/api/v1/books/${bookId}`),
      through(base, `/api/v1/books?q=Dispossessed&limit=${1 + (round % 50)}`),
      through(base, `/api/v1/authors?country=US&limit=${1 + (round % 50)}`),
      graphql,
    ])
    return Promise.all(
      answers.map(
        async (r) => `${r.status} ${r.url.replace(base, '')} ${r.status >= 300 ? await r.text() : ''}`,
      ),
    )
  }

  /** Every write of the old shape through `base`: create, update, action, nested create, GraphQL. */
  const writes = async (base: string) => {
    const book = await json(
      await through(base, '/api/v1/books', {
        method: 'POST',
        json: { title: 'The Word for World Is Forest', isbn: isbn(), authorId, pages: 189 },
      }),
      201,
    )
    expect(Object.keys(book)).not.toContain('subtitle')
    const patched = await json(
      await through(base, `/api/v1/books/${book.id}`, { method: 'PATCH', json: { pages: 190 } }),
      200,
    )
    expect(patched.pages).toBe(190)
    expect(
      (await json(await through(base, `/api/v1/books/${book.id}/lend`, { method: 'POST' }), 200)).status,
    ).toBe('lent')
    await json(
      await through(base, `/api/v1/books/${book.id}/chapters`, {
        method: 'POST',
        json: { title: 'One', number: 1 },
      }),
      201,
    )
    const mutation = await json(
      await through(base, '/graphql', {
        method: 'POST',
        json: {
          query: `mutation { updateBook(id: "${book.id}", input: { pages: 191 }) { id pages } }`,
        },
      }),
      200,
    )
    expect(mutation).toEqual({ data: { updateBook: { id: book.id, pages: 191 } } })
    return book.id as string
  }

  beforeAll(async () => {
    // No response cache: every read below reaches the database's statements, which is what a
    // change under them could break (a cached answer would hide it).
    first = await startTestServer({ schema: librarySchema(), cacheMb: 0 })
    second = await startServe([
      '--port',
      '0',
      '--db',
      first.dbPath,
      '--schema',
      schemaFile('library', LIBRARY),
      '--base-url',
      first.url,
      '--rate-limit',
      '0',
      '--log-level',
      'error',
      '--no-cache',
      ...(onPostgres && process.env.API_TEST_REDIS_URL ? ['--redis', process.env.API_TEST_REDIS_URL] : []),
    ])
    tenant = await first.tenant()
    authorId = (
      await json(
        await through(first.url, '/api/v1/authors', {
          method: 'POST',
          json: { name: 'Ursula', country: 'US' },
        }),
        201,
      )
    ).id
    bookId = (
      await json(
        await through(second.url, '/api/v1/books', {
          method: 'POST',
          json: { title: 'The Dispossessed', isbn: isbn(), authorId, pages: 387 },
        }),
        201,
      )
    ).id
    // Each statement prepared on every connection before the change, as a running server has them.
    for (let round = 0; round < 10; round++) {
      for (const base of [first.url, second.url]) expect(await reads(base, round)).toEqual(expect.anything())
      await writes(round % 2 ? first.url : second.url)
    }
  }, 60_000)

  afterAll(async () => {
    await added?.stop()
    await second?.stop()
    await first?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps answering every read while another process applies an additive change, and after', async () => {
    let applying = true
    const answers: string[] = []
    const hammer = (async () => {
      for (let round = 0; applying; round++)
        for (const base of [first.url, second.url]) answers.push(...(await reads(base, round)))
    })()
    const run = await runAdmin(['schema', 'apply', '--schema', schemaFile('added', ADDED)], first.dbPath)
    applying = false
    await hammer
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    for (let round = 0; round < 3; round++)
      for (const base of [first.url, second.url]) answers.push(...(await reads(base, round)))
    expect(answers.filter((answer) => !answer.startsWith('200 '))).toEqual([])
    expect(answers.length).toBeGreaterThan(30)
    expect(errorsOfOld()).toEqual([])
  }, 60_000)

  it('keeps answering every write of the old shape; a server of the new file reads the new fields', async () => {
    const ids = [await writes(first.url), await writes(second.url)]
    added = await replica(schemaFromDeclaration(ADDED))
    for (const id of [bookId, ...ids]) {
      const book = await json(await through(added.url, `/api/v1/books/${id}`), 200)
      expect(book).toMatchObject({ subtitle: null, edition: 1 })
    }
    await json(
      await through(added.url, `/api/v1/books/${bookId}`, {
        method: 'PATCH',
        json: { subtitle: 'An Ambiguous Utopia', edition: 2 },
      }),
      200,
    )
    const found = await json(await through(added.url, '/api/v2/books?q=ambiguous&edition_gte=2'), 200)
    expect(found.data.map((b: { id: string }) => b.id)).toEqual([bookId])
    // A client made after the change may be granted the new collection's scopes.
    const { client, secret } = await first.store.clients.create({
      name: 'reviewer',
      orgId: tenant.orgId,
      public: false,
      scope: ['read:reviews', 'write:reviews'],
    })
    const token = await clientToken(added.url, { id: client.id, secret: secret! })
    const review = await fetch(`${added.url}/api/v1/reviews`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ bookId, stars: 5 }),
    })
    await json(review, 201)
    // The old servers still read the record the new one changed, in the old shape.
    for (const base of [first.url, second.url]) {
      const book = await json(await through(base, `/api/v1/books/${bookId}`), 200)
      expect(book).toMatchObject({ title: 'The Dispossessed', pages: 387 })
      expect(Object.keys(book)).not.toContain('subtitle')
      const searched = await json(await through(base, '/api/v1/books?q=dispossessed'), 200)
      expect(searched.data.map((b: { id: string }) => b.id)).toEqual([bookId])
    }
    expect([...errorsOfOld(), ...logged]).toEqual([])
  }, 60_000)

  it('answers a 500 in the contract shape for a collection whose field was removed under it, and loses nothing else', async () => {
    const run = await runAdmin(
      ['schema', 'apply', '--allow-destructive', '--schema', schemaFile('removed', REMOVED)],
      first.dbPath,
    )
    expect(run.status).toBe(0)
    const create = await through(second.url, '/api/v1/authors', {
      method: 'POST',
      json: { name: 'Octavia', country: 'US' },
    })
    expect(create.status).toBe(500)
    expect(await create.json()).toEqual({
      error: { code: 'INTERNAL', message: expect.any(String), details: [] },
    })
    // The log line names what the database missed (its wording differs between the backends); the
    // server writes its log in batches.
    const named = (line: string) => line.includes('unexpected error') && line.includes('country')
    for (let i = 0; i < 50 && !errorsOfOld().some(named); i++) await Bun.sleep(50)
    expect(errorsOfOld().filter(named)).toHaveLength(1)
    const read = await through(second.url, `/api/v1/authors/${authorId}?fields=name,country`)
    expect(read.status).toBe(500)
    // The server lives on: the books, which lost nothing, are read and written as before.
    for (const base of [first.url, second.url]) {
      const book = await json(await through(base, `/api/v1/books/${bookId}`), 200)
      expect(book).toMatchObject({ title: 'The Dispossessed', pages: 387 })
    }
    await writes(second.url)
    // The author is intact for a server of the file in force.
    added?.stop()
    added = await replica(schemaFromDeclaration(REMOVED))
    expect(await json(await through(added.url, `/api/v1/authors/${authorId}`), 200)).toMatchObject({
      name: 'Ursula',
    })
  }, 60_000)
})
