/**
 * A schema of one's own served (contract, "Your own resources"): `api-server serve --schema
 * library.json` on a real port, used through REST, its events, OpenAPI and GraphQL, with the
 * built-in example's collections gone. A client made without --scope holds the library's scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminDatabase, runAdmin, runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { clientToken } from '../support/tokens.ts'

const LIBRARY = join(import.meta.dir, 'files/library.json')
let dir: string
let db: string
let server: ServeProcess
let token: string
let clientScope: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-library-'))
  db = await adminDatabase(dir, 'library')
  const schema = ['--schema', LIBRARY]
  const org = JSON.parse(await runOk(['org', 'create', '--name', 'Library', '--json', ...schema], db)).id
  const client = JSON.parse(
    await runOk(['client', 'create', '--name', 'desk', '--org', org, '--json', ...schema], db),
  )
  server = await startServe(['--port', '0', '--db', db, '--rate-limit', '0', ...schema])
  const response = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  clientScope = ((await response.json()) as { scope: string }).scope
  token = await clientToken(server.url, { id: client.client_id, secret: client.client_secret })
})
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
  })
const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await api(path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers,
  })
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { data: Record<string, unknown>[] },
  }
}

describe('api-server serve --schema library.json', () => {
  let author: Record<string, unknown>
  let book: Record<string, unknown>

  it('grants a client made without --scope every scope of the library, and none of the example', () => {
    const scopes = clientScope.split(' ')
    for (const scope of [
      'read:authors',
      'write:authors',
      'delete:authors',
      'read:books',
      'write:books',
      'read:chapters',
      'read:events',
    ])
      expect(scopes).toContain(scope)
    expect(scopes).not.toContain('read:orders')
  })

  it('creates an author, and a book once with an Idempotency-Key', async () => {
    author = (await send('POST', '/api/v2/authors', { name: 'Ursula K. Le Guin', country: 'US' })).body
    expect(author.id).toMatch(/^aut_/)
    const body = { title: 'The Dispossessed', isbn: '978-0-06-051275-0', authorId: author.id, pages: 387 }
    const first = await send('POST', '/api/v2/books', body, { 'Idempotency-Key': 'book-1' })
    expect(first.status).toBe(201)
    book = first.body
    expect(book).toMatchObject({ title: 'The Dispossessed', status: 'available', pages: 387 })
    const again = await api('/api/v2/books', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Idempotency-Key': 'book-1' },
    })
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(((await again.json()) as { id: string }).id).toBe(book.id as string)
    await send('POST', '/api/v2/books', {
      title: 'A Wizard of Earthsea',
      isbn: '978-0-547-77374-2',
      authorId: author.id,
      pages: 183,
    })
  })

  it('creates a chapter nested under the book, carrying its id', async () => {
    const chapter = await send('POST', `/api/v2/books/${book.id}/chapters`, {
      title: 'Chapter One',
      number: 1,
    })
    expect(chapter.status).toBe(201)
    expect(chapter.body).toMatchObject({ bookId: book.id, number: 1 })
    const listed = await send('GET', `/api/v2/books/${book.id}/chapters`)
    expect(listed.body.data.map((c) => c.title)).toEqual(['Chapter One'])
  })

  it('lists books filtered by status and sorted by -pages, and finds them with q', async () => {
    const listed = await send('GET', '/api/v2/books?status=available&sort=-pages')
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((b) => b.pages)).toEqual([387, 183])
    const found = await send('GET', '/api/v2/books?q=earthsea')
    expect(found.body.data.map((b) => b.title)).toEqual(['A Wizard of Earthsea'])
  })

  it('lends the book, refuses to lend it twice, and records book.lent', async () => {
    const lent = await send('POST', `/api/v2/books/${book.id}/lend`)
    expect(lent.status).toBe(200)
    expect(lent.body.status).toBe('lent')
    expect((await send('POST', `/api/v2/books/${book.id}/lend`)).status).toBe(409)
    const events = await send('GET', '/api/v1/events?type=book.lent')
    expect(events.body.data.map((e) => e.resourceId)).toEqual([book.id])
  })

  it("serves none of the example's collections, in REST or OpenAPI", async () => {
    expect((await send('GET', '/api/v1/orders')).status).toBe(404)
    const document = (await (await fetch(`${server.url}/api/v2/openapi.json`)).json()) as {
      paths: Record<string, unknown>
    }
    const paths = Object.keys(document.paths)
    expect(paths).toContain('/api/v2/books')
    expect(paths).toContain('/api/v2/books/{id}/lend')
    expect(paths.filter((p) => /orders|products|posts/.test(p))).toEqual([])
  })

  it('answers GraphQL: books with their authors, and createBook', async () => {
    const graphql = async (query: string, variables: Record<string, unknown> = {}) =>
      (await (
        await api('/graphql', { method: 'POST', body: JSON.stringify({ query, variables }) })
      ).json()) as {
        data: Record<string, { nodes?: unknown[] } & Record<string, unknown>>
        errors?: unknown
      }
    const created = await graphql(
      'mutation ($input: CreateBookInput!) { createBook(input: $input) { title status author { name } } }',
      { input: { title: 'Lavinia', isbn: '978-0-15-101424-2', authorId: author.id, pages: 279 } },
    )
    expect(created.errors).toBeUndefined()
    expect(created.data.createBook).toEqual({
      title: 'Lavinia',
      status: 'available',
      author: { name: 'Ursula K. Le Guin' },
    })
    const listed = await graphql('{ books(sort: "title") { nodes { title author { name } } } }')
    expect(listed.errors).toBeUndefined()
    expect(listed.data.books!.nodes).toEqual([
      { title: 'A Wizard of Earthsea', author: { name: 'Ursula K. Le Guin' } },
      { title: 'Lavinia', author: { name: 'Ursula K. Le Guin' } },
      { title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin' } },
    ])
  })

  it('refuses client update --scope with a scope the library lacks', async () => {
    const schema = ['--schema', LIBRARY]
    const org = JSON.parse(await runOk(['org', 'create', '--name', 'Other', '--json', ...schema], db)).id
    const client = JSON.parse(
      await runOk(['client', 'create', '--name', 'x', '--org', org, '--json', ...schema], db),
    )
    const run = await runAdmin(
      ['client', 'update', client.client_id, '--scope', 'read:orders', ...schema],
      db,
    )
    expect(run.stderr).toBe('api-server: unknown scope read:orders\n')
    expect(run.status).toBe(2)
    expect(
      await runOk(['client', 'update', client.client_id, '--scope', 'read:books', ...schema], db),
    ).toContain('read:books')
  })
})
