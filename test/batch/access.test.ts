import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { batchError, batchOk, footprint, sendBatch } from './support.ts'

/**
 * Each operation of a batch is authorized as if sent alone: the token's scopes, the user's role
 * and the organization, operation by operation; the one that may not is the batch's answer, and
 * nothing of the batch is written.
 */

let server: TestServer
let owner: Tenant
let bookId: string
const TABLES = ['authors', 'books', 'chapters']

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  owner = await server.tenant()
  const [, book] = await batchOk(owner, [
    { method: 'POST', path: '/api/v2/authors', body: { name: 'Ann Leckie' }, ref: 'a' },
    {
      method: 'POST',
      path: '/api/v2/books',
      body: { title: 'Ancillary Justice', authorId: '${a.id}', pages: 386, isbn: 'aj' },
    },
  ])
  bookId = book!.body!.id as string
})

afterAll(() => server?.stop())

const authorThenBook = [
  { method: 'POST', path: '/api/v2/authors', body: { name: 'Martha Wells' }, ref: 'a' },
  {
    method: 'POST',
    path: '/api/v2/books',
    body: { title: 'All Systems Red', authorId: '${a.id}', pages: 144, isbn: 'asr' },
  },
]

describe('authorization per operation', () => {
  it('fails the book operation of a token without write:books with 403, writing not even the author', async () => {
    const limited = await server.tenant({ scope: ['read:authors', 'write:authors', 'read:books'] })
    const response = await sendBatch(limited, authorThenBook)
    expect(response.headers.get('www-authenticate')).toContain('scope="write:books"')
    const failed = await batchError(response)
    expect(failed).toMatchObject({ status: 403, code: 'FORBIDDEN', fields: ['operations[1].path'] })
    expect(failed.message).toContain('write:books')
    expect(await footprint(server, limited.orgId, TABLES)).toEqual([0, 0, 0, 0])
    // The author alone is within its scopes.
    expect((await batchOk(limited, authorThenBook.slice(0, 1)))[0]!.status).toBe(201)
  })

  it('fails a viewer’s batch with 403, and lets a member’s through', async () => {
    const org = await orgWithUsers(server, 'Readers')
    const cli = await discover(server, CLI_CLIENT_ID)
    const tokenOf = async (email: string) =>
      (await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)).access_token
    const as = (token: string) => ({
      fetch: (path: string, init: RequestInit & { json?: unknown } = {}) =>
        server.fetch(path, {
          ...init,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
          body: JSON.stringify(init.json),
        }),
    })
    const viewer = as(await tokenOf(org.viewer.email))
    const before = await footprint(server, org.orgId, TABLES)
    const failed = await batchError(await sendBatch(viewer, authorThenBook))
    expect(failed).toMatchObject({ status: 403, code: 'FORBIDDEN', fields: ['operations[0].path'] })
    expect(await footprint(server, org.orgId, TABLES)).toEqual(before)
    const member = as(await tokenOf(org.member.email))
    expect((await batchOk(member, authorThenBook)).map((r) => r.status)).toEqual([201, 201])
  })
})

describe('organizations', () => {
  it.each([
    ['changes', { method: 'PATCH', path: () => `/api/v2/books/${bookId}`, body: { pages: 1 } }],
    ['acts on', { method: 'POST', path: () => `/api/v2/books/${bookId}/lend` }],
    [
      'nests under',
      { method: 'POST', path: () => `/api/v2/books/${bookId}/chapters`, body: { title: 'I', number: 1 } },
    ],
    ['deletes', { method: 'DELETE', path: () => `/api/v2/books/${bookId}` }],
  ])('refuses with 403 a batch that %s another organization’s record, writing nothing', async (_, op) => {
    const other = await server.tenant()
    const ownerBefore = await footprint(server, owner.orgId, TABLES)
    const response = await sendBatch(other, [authorThenBook[0], { ...op, path: op.path() }])
    expect(await batchError(response)).toMatchObject({ status: 403, fields: ['operations[1].path'] })
    expect(await footprint(server, other.orgId, TABLES)).toEqual([0, 0, 0, 0])
    expect(await footprint(server, owner.orgId, TABLES)).toEqual(ownerBefore)
  })

  it('refuses a reference to another organization’s author with 422 naming the field', async () => {
    const other = await server.tenant()
    const [theirs] = await batchOk(owner, authorThenBook.slice(0, 1))
    const response = await sendBatch(other, [
      {
        method: 'POST',
        path: '/api/v2/books',
        body: { title: 'x', authorId: theirs!.body!.id, pages: 1, isbn: 'x' },
      },
    ])
    expect(await batchError(response)).toMatchObject({ status: 422, fields: ['operations[0].body.authorId'] })
  })
})
