import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { newId } from '../../shared/ids.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { batchError, footprint, sendBatch } from './support.ts'

/**
 * A batch that fails answers its first failing operation's status and error, a detail naming the
 * place (`operations[1].body.pages`), and leaves nothing behind: no record, no event.
 */

let server: TestServer
let tenant: Tenant
const TABLES = ['authors', 'books', 'chapters']
const known = { author: '', book: '', lent: '', bookTag: '' }

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  tenant = await server.tenant()
  const post = async (path: string, json: unknown) => {
    const response = await tenant.fetch(path, { method: 'POST', json })
    expect(response.status).toBeOneOf([200, 201])
    return { id: ((await response.clone().json()) as { id: string }).id, etag: response.headers.get('etag')! }
  }
  known.author = (await post('/api/v2/authors', { name: 'Iain Banks' })).id
  const book = await post('/api/v2/books', {
    title: 'Excession',
    authorId: known.author,
    pages: 451,
    isbn: 'taken',
  })
  known.book = book.id
  known.bookTag = book.etag
  known.lent = (
    await post('/api/v2/books', { title: 'Use of Weapons', authorId: known.author, pages: 411, isbn: 'lent' })
  ).id
  expect((await tenant.fetch(`/api/v2/books/${known.lent}/lend`, { method: 'POST' })).status).toBe(200)
})

afterAll(() => server?.stop())

/** Every batch below starts with a create that would be written if the batch were not atomic. */
const FIRST = {
  method: 'POST',
  path: '/api/v2/authors',
  body: { name: 'Written only if not atomic', country: 'GB' },
  ref: 'first',
}
let isbns = 0
const book = (extra: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: '/api/v2/books',
  body: { title: 'Matter', authorId: '${first.id}', pages: 593, isbn: `isbn-${++isbns}`, ...extra },
})

type Case = [string, () => unknown[], number, string, string[]]
const cases: Case[] = [
  ['a field out of range', () => [book({ pages: 0 })], 422, 'VALIDATION_ERROR', ['operations[1].body.pages']],
  [
    'an unknown field',
    () => [book({ colour: 'red' })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.colour'],
  ],
  [
    'a required field missing',
    () => [{ method: 'POST', path: '/api/v2/authors', body: {} }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.name'],
  ],
  [
    'a reference to no record',
    () => [book({ authorId: newId('aut') })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.authorId'],
  ],
  ['a unique value taken', () => [book({ isbn: 'taken' })], 409, 'CONFLICT', ['operations[1].body.isbn']],
  [
    'an unknown collection',
    () => [{ method: 'POST', path: '/api/v2/dragons', body: {} }],
    404,
    'NOT_FOUND',
    ['operations[1].path'],
  ],
  [
    'a record that does not exist',
    () => [{ method: 'PATCH', path: `/api/v2/books/${newId('bok')}`, body: { pages: 2 } }],
    404,
    'NOT_FOUND',
    ['operations[1].path'],
  ],
  [
    'an id of the wrong shape',
    () => [{ method: 'DELETE', path: '/api/v2/books/42' }],
    404,
    'NOT_FOUND',
    ['operations[1].path'],
  ],
  [
    'a referenced id of another collection',
    () => [{ method: 'PATCH', path: '/api/v2/books/${first.id}', body: { pages: 2 } }],
    404,
    'NOT_FOUND',
    ['operations[1].path'],
  ],
  [
    'PUT on a collection',
    () => [{ method: 'PUT', path: '/api/v2/authors', body: { name: 'x' } }],
    405,
    'METHOD_NOT_ALLOWED',
    ['operations[1].method'],
  ],
  [
    'a bulk DELETE',
    () => [{ method: 'DELETE', path: '/api/v2/authors' }],
    405,
    'METHOD_NOT_ALLOWED',
    ['operations[1].method'],
  ],
  [
    'POST on a record',
    () => [{ method: 'POST', path: `/api/v2/books/${known.book}`, body: {} }],
    405,
    'METHOD_NOT_ALLOWED',
    ['operations[1].method'],
  ],
  [
    'a read',
    () => [{ method: 'GET', path: '/api/v2/authors' }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].method'],
  ],
  [
    'an action from the wrong state',
    () => [{ method: 'POST', path: `/api/v2/books/${known.lent}/lend` }],
    409,
    'CONFLICT',
    ['operations[1].path'],
  ],
  [
    'a DELETE of a referenced record',
    () => [{ method: 'DELETE', path: `/api/v2/authors/${known.author}` }],
    409,
    'CONFLICT',
    ['operations[1].path'],
  ],
  [
    'a stale ifMatch',
    () => [{ method: 'PATCH', path: `/api/v2/books/${known.book}`, body: { pages: 3 }, ifMatch: '"stale"' }],
    412,
    'PRECONDITION_FAILED',
    ['operations[1].ifMatch'],
  ],
  [
    'ifMatch on a create',
    () => [{ ...book(), ifMatch: '*' }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].ifMatch'],
  ],
  [
    'a PATCH without body',
    () => [{ method: 'PATCH', path: `/api/v2/books/${known.book}` }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body'],
  ],
  [
    'an action with fields',
    () => [{ method: 'POST', path: `/api/v2/books/${known.book}/lend`, body: { to: 'x' } }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body'],
  ],
  [
    'a DELETE with a body',
    () => [{ method: 'DELETE', path: `/api/v2/books/${known.book}`, body: {} }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body'],
  ],
  [
    'a v1 path',
    () => [{ method: 'POST', path: '/api/v1/authors', body: { name: 'x' } }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].path'],
  ],
  [
    'a query string',
    () => [{ method: 'DELETE', path: `/api/v2/books/${known.book}?x=1` }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].path'],
  ],
  [
    'an unknown member',
    () => [{ ...book(), headers: { 'If-Match': '*' } }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].headers'],
  ],
  [
    'an unknown ref',
    () => [book({ authorId: '${nobody.id}' })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.authorId'],
  ],
  [
    'a ref of a later operation',
    () => [book({ authorId: '${later.id}' }), { ...FIRST, ref: 'later' }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.authorId'],
  ],
  [
    'a missing field of a result',
    () => [book({ authorId: '${first.nope}' })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.authorId'],
  ],
  ['a duplicate ref', () => [{ ...FIRST }], 422, 'VALIDATION_ERROR', ['operations[1].ref']],
  [
    'a reference without a field',
    () => [book({ title: 'by ${first}' })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.title'],
  ],
  [
    'an unclosed reference',
    () => [book({ title: '${first.name' })],
    422,
    'VALIDATION_ERROR',
    ['operations[1].body.title'],
  ],
  [
    'a reference in part of a path segment',
    () => [{ method: 'DELETE', path: '/api/v2/authors/x${first.id}' }],
    422,
    'VALIDATION_ERROR',
    ['operations[1].path'],
  ],
  [
    'null inside a text',
    () => [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Anonymous' }, ref: 'second' },
      { method: 'PATCH', path: '/api/v2/authors/${first.id}', body: { name: 'like ${second.country}' } },
    ],
    422,
    'VALIDATION_ERROR',
    ['operations[2].body.name'],
  ],
  [
    'the last of several operations',
    () => [book({ isbn: 'a1' }), book({ isbn: 'a2' }), book({ isbn: 'a3', pages: -1 })],
    422,
    'VALIDATION_ERROR',
    ['operations[3].body.pages'],
  ],
]

describe('a batch that fails', () => {
  it.each(cases)('on %s names the place and writes nothing', async (_, operations, status, code, fields) => {
    const before = await footprint(server, tenant.orgId, TABLES)
    const failed = await batchError(await sendBatch(tenant, [FIRST, ...operations()]))
    expect(failed).toMatchObject({ status, code, fields })
    expect(failed.message).toContain(fields[0]!.split('.')[0]!)
    expect(await footprint(server, tenant.orgId, TABLES)).toEqual(before)
  })

  it('still takes the If-Match its REST GET hands out', async () => {
    const response = await sendBatch(tenant, [
      { method: 'PATCH', path: `/api/v2/books/${known.book}`, body: { pages: 452 }, ifMatch: known.bookTag },
    ])
    expect(response.status).toBe(200)
  })
})
