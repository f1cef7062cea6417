import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { batchError, batchOk, footprint, sendBatch } from './support.ts'

/**
 * `POST /api/v2/batch` on the contract's library (docs/bulk.md, "Atomic batches"): every kind of
 * write, references to earlier results, Idempotency-Key, events, and the limits of a batch.
 */

let server: TestServer
let tenant: Tenant
const TABLES = ['authors', 'books', 'chapters']

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  tenant = await server.tenant()
})

afterAll(() => server?.stop())

const AUTHOR = { method: 'POST', path: '/api/v2/authors', body: { name: 'Malformed' } }
let isbns = 0
const isbn = () => `978-${Date.now() % 1e6}-${++isbns}`

describe('POST /api/v2/batch', () => {
  it('creates an author and a book naming it with ${a.id}, answering each as its REST request would', async () => {
    const listed = async () =>
      ((await (await tenant.fetch('/api/v2/books?limit=100')).json()) as { data: unknown[] }).data.length
    // Read once before, so that a kept answer of the list would show if the batch left it stale.
    const before = await listed()
    const results = await batchOk(tenant, [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Ursula Le Guin', country: 'US' }, ref: 'a' },
      {
        method: 'POST',
        path: '/api/v2/books',
        body: { title: 'The Dispossessed', authorId: '${a.id}', pages: 387, isbn: isbn() },
      },
    ])
    expect(results.map((r) => r.status)).toEqual([201, 201])
    const [author, book] = results.map((r) => r.body!)
    expect(book!.authorId).toBe(author!.id)
    expect(await listed()).toBe(before + 1)
    for (const [collection, record] of [
      ['authors', author],
      ['books', book],
    ] as const) {
      const read = await tenant.fetch(`/api/v2/${collection}/${record!.id}`)
      expect(await read.json()).toEqual(record)
    }
  })

  it('runs a nested create, an action, PATCH, PUT and DELETE, in order, with references in paths', async () => {
    const number = isbn()
    const results = await batchOk(tenant, [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Stanisław Lem' }, ref: 'lem' },
      {
        method: 'POST',
        path: '/api/v2/books',
        body: { title: 'Solaris', authorId: '${lem.id}', pages: 204, isbn: number },
        ref: 'b',
      },
      {
        method: 'POST',
        path: '/api/v2/books/${b.id}/chapters',
        body: { title: 'The Newcomer', number: 1 },
        ref: 'c',
      },
      { method: 'POST', path: '/api/v2/books/${b.id}/lend', body: {} },
      { method: 'PATCH', path: '/api/v2/books/${b.id}', body: { pages: 224 } },
      {
        method: 'PUT',
        path: '/api/v2/books/${b.id}/chapters/${c.id}',
        body: { title: 'The Solarists', number: 2 },
      },
      { method: 'DELETE', path: '/api/v2/chapters/${c.id}' },
    ])
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 200, 200, 200, 204])
    expect(results[3]!.body).toMatchObject({ status: 'lent', pages: 204 })
    expect(results[4]!.body).toMatchObject({ status: 'lent', pages: 224, isbn: number })
    expect(results[5]!.body).toMatchObject({
      title: 'The Solarists',
      number: 2,
      bookId: results[1]!.body!.id,
    })
    expect(results[6]!.body).toBeNull()
    const book = await (await tenant.fetch(`/api/v2/books/${results[1]!.body!.id}`)).json()
    expect(book).toMatchObject({ status: 'lent', pages: 224 })
    expect((await tenant.fetch(`/api/v2/chapters/${results[2]!.body!.id}`)).status).toBe(404)
  })

  it.each([
    ['one reference alone keeps its JSON type', '${b.pages}', 321],
    ['a reference inside text is written as text', 'pages: ${b.pages}, by ${a.name}', 'pages: 321, by Nnedi'],
    ['\\${ is a literal ${', 'costs \\${5} and ${a.name}', 'costs ${5} and Nnedi'],
    ['a $ before a reference stays', 'US$${b.pages}', 'US$321'],
    ['a lone $ or \\ stays', 'US$ 5 \\ {x}', 'US$ 5 \\ {x}'],
  ])('%s', async (_, template, expected) => {
    const results = await batchOk(tenant, [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Nnedi' }, ref: 'a' },
      {
        method: 'POST',
        path: '/api/v2/books',
        body: { title: 'Binti', authorId: '${a.id}', pages: 321, isbn: isbn() },
        ref: 'b',
      },
      {
        method: 'POST',
        path: '/api/v2/books',
        body: {
          title: typeof expected === 'string' ? template : 'Home',
          authorId: '${a.id}',
          pages: typeof expected === 'number' ? template : 1,
          isbn: isbn(),
        },
      },
    ])
    const made = results[2]!.body!
    expect(typeof expected === 'number' ? made.pages : made.title).toBe(expected)
  })

  it('appends each write’s event in operation order, with the request id and the actor', async () => {
    const requestId = `batch-${crypto.randomUUID()}`
    const results = await batchOk(
      tenant,
      [
        { method: 'POST', path: '/api/v2/authors', body: { name: 'Octavia Butler' }, ref: 'a' },
        {
          method: 'POST',
          path: '/api/v2/books',
          body: { title: 'Kindred', authorId: '${a.id}', pages: 264, isbn: isbn() },
          ref: 'b',
        },
        { method: 'POST', path: '/api/v2/books/${b.id}/lend' },
        { method: 'PATCH', path: '/api/v2/authors/${a.id}', body: { country: 'US' } },
      ],
      { 'X-Request-Id': requestId },
    )
    const rows = await server.sql.all<{
      type: string
      resource_id: string
      actor_type: string
      actor_id: string
    }>(
      'SELECT type, resource_id, actor_type, actor_id FROM events WHERE request_id = ? ORDER BY id',
      requestId,
    )
    const [author, book] = results.map((r) => r.body!.id)
    expect(rows.map((r): unknown[] => [r.type, r.resource_id])).toEqual([
      ['author.created', author],
      ['book.created', book],
      ['book.lent', book],
      ['author.updated', author],
    ])
    expect(new Set(rows.map((r) => `${r.actor_type} ${r.actor_id}`))).toEqual(
      new Set([`client ${tenant.clientId}`]),
    )
  })

  it('replays the whole answer for the same Idempotency-Key and body, and refuses another body with 422', async () => {
    const key = `batch-${crypto.randomUUID()}`
    const operations = [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Ted Chiang' }, ref: 'a' },
      {
        method: 'POST',
        path: '/api/v2/books',
        body: { title: 'Exhalation', authorId: '${a.id}', pages: 368, isbn: isbn() },
      },
    ]
    const first = await sendBatch(tenant, operations, { 'Idempotency-Key': key })
    expect(first.status).toBe(200)
    const before = await footprint(server, tenant.orgId, TABLES)
    const again = await sendBatch(tenant, operations, { 'Idempotency-Key': key })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.text()).toBe(await first.text())
    expect(await footprint(server, tenant.orgId, TABLES)).toEqual(before)
    const other = await sendBatch(tenant, operations.slice(0, 1), { 'Idempotency-Key': key })
    expect(await batchError(other)).toMatchObject({ status: 422, fields: ['Idempotency-Key'] })
  })

  it('frees the key of a batch that failed, so a corrected retry runs it', async () => {
    const key = `batch-${crypto.randomUUID()}`
    const failing = [{ method: 'POST', path: '/api/v2/authors', body: { name: '' } }]
    expect((await sendBatch(tenant, failing, { 'Idempotency-Key': key })).status).toBe(422)
    const fixed = [{ method: 'POST', path: '/api/v2/authors', body: { name: 'Fixed' } }]
    const retried = await sendBatch(tenant, fixed, { 'Idempotency-Key': key })
    expect(retried.status).toBe(200)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  it('takes 100 operations and refuses 101 with 422 naming operations, writing nothing', async () => {
    const authors = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        method: 'POST',
        path: '/api/v2/authors',
        body: { name: `Author ${i}` },
      }))
    const before = await server.sql.count('authors', tenant.orgId)
    const results = await batchOk(tenant, authors(100))
    expect(results).toHaveLength(100)
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]))
    expect(await server.sql.count('authors', tenant.orgId)).toBe(before + 100)
    const over = await batchError(await sendBatch(tenant, authors(101)))
    expect(over).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', fields: ['operations'] })
    expect(await server.sql.count('authors', tenant.orgId)).toBe(before + 100)
  })

  it('answers other methods with 405 and Allow, and has no v1 path', async () => {
    const get = await tenant.fetch('/api/v2/batch')
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST, OPTIONS')
    const v1 = await tenant.fetch('/api/v1/batch', { method: 'POST', json: { operations: [] } })
    expect(v1.status).toBe(404)
  })

  it.each([
    ['an array', [], ['body']],
    ['no operations', {}, ['operations']],
    ['no operation', { operations: [] }, ['operations']],
    ['operations not an array', { operations: 'all' }, ['operations']],
    ['another member', { operations: [AUTHOR], atomic: true }, ['atomic']],
    ['an operation that is no object', { operations: [AUTHOR, 5] }, ['operations[1]']],
    ['no method nor path', { operations: [{}] }, ['operations[0].method', 'operations[0].path']],
  ])('refuses a body with %s: 422 naming the place', async (_, body, fields) => {
    const response = await tenant.fetch('/api/v2/batch', { method: 'POST', json: body })
    expect(await batchError(response)).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', fields })
  })

  it('refuses a body that is not JSON with 400, and another media type with 415', async () => {
    const headers = { 'Content-Type': 'application/json' }
    const broken = await tenant.fetch('/api/v2/batch', { method: 'POST', headers, body: '{"operations": [' })
    expect((await batchError(broken)).status).toBe(400)
    const text = await tenant.fetch('/api/v2/batch', {
      method: 'POST',
      body: 'operations',
      headers: { 'Content-Type': 'text/plain' },
    })
    expect((await batchError(text)).status).toBe(415)
  })
})
