/**
 * A schema file that changes between starts, through the real commands (docs/schema.md, "What a
 * change does"): a change that loses nothing is applied by the next start; one that may lose data
 * is refused with the database untouched, shown with its SQL by `schema plan` and applied by
 * `schema apply --allow-destructive`; `renamedFrom` keeps a field's values. On both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SchemaDeclaration } from '../../shared/schema/declaration.ts'
import { runAdmin } from '../admin/run.ts'
import { LIBRARY, librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const dir = mkdtempSync(join(tmpdir(), 'api-plan-apply-'))
let server: TestServer
let tenant: Tenant
let bookId: string

/** A schema file of the library with `change` made to the books' fields. */
function libraryFile(
  name: string,
  change: (fields: SchemaDeclaration['resources'][string]['fields']) => void,
) {
  const declaration = structuredClone(LIBRARY)
  change(declaration.resources.books!.fields)
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(declaration))
  return file
}

const versions = async () => (await server.sql.all('SELECT version FROM schema_versions')).length
const book = async () => server.sql.get<Record<string, unknown>>('SELECT * FROM books WHERE id = ?', bookId)

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  tenant = await server.tenant()
  const author = await (
    await tenant.fetch('/api/v1/authors', { method: 'POST', json: { name: 'Ursula' } })
  ).json()
  const created = await tenant.fetch('/api/v1/books', {
    method: 'POST',
    json: { title: 'The Dispossessed', isbn: '978-0-06-051275-0', authorId: author.id, pages: 387 },
  })
  expect(created.status).toBe(201)
  bookId = (await created.json()).id
})

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('a schema file changed between starts', () => {
  it('plans a new nullable field as safe with its SQL, and changes nothing', async () => {
    const file = libraryFile('subtitle', (fields) => {
      fields.subtitle = { type: 'text', max: 200, nullable: true }
    })
    const before = await versions()
    const run = await runAdmin(['schema', 'plan', '--schema', file], server.dbPath)
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('safe        add field books.subtitle (text, nullable)')
    expect(run.stdout).toMatch(/ALTER TABLE books ADD COLUMN subtitle/)
    expect(await versions()).toBe(before)
    expect(Object.keys((await book())!)).not.toContain('subtitle')
  })

  it('applies the new field at the next start, keeping the records', async () => {
    const file = libraryFile('subtitle', (fields) => {
      fields.subtitle = { type: 'text', max: 200, nullable: true }
    })
    const before = await versions()
    const run = await runAdmin(['migrate', '--schema', file], server.dbPath)
    expect(run.status).toBe(0)
    expect(await versions()).toBe(before + 1)
    expect(await book()).toMatchObject({ title: 'The Dispossessed', subtitle: null, pages: 387 })
  })

  it('refuses a removed field at start: exit 1, the change and the command named, nothing changed', async () => {
    const file = libraryFile('no-isbn', (fields) => {
      delete fields.isbn
    })
    const before = await versions()
    const run = await runAdmin(['migrate', '--schema', file], server.dbPath)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('remove field books.isbn')
    expect(run.stderr).toContain('api-server schema apply --allow-destructive')
    expect(await versions()).toBe(before)
    expect((await book())!.isbn).toBe('978-0-06-051275-0')
  })

  it('plans the removal as destructive, then applies it with --allow-destructive', async () => {
    const file = libraryFile('no-isbn', (fields) => {
      delete fields.isbn
    })
    const plan = await runAdmin(['schema', 'plan', '--schema', file], server.dbPath)
    expect(plan.status).toBe(0)
    expect(plan.stdout).toContain('destructive remove field books.isbn')
    expect(plan.stdout).toMatch(/DROP COLUMN isbn/)
    const refused = await runAdmin(['schema', 'apply', '--schema', file], server.dbPath)
    expect(refused.status).toBe(1)
    const applied = await runAdmin(
      ['schema', 'apply', '--schema', file, '--allow-destructive'],
      server.dbPath,
    )
    expect(applied.status).toBe(0)
    expect(applied.stdout).toContain('applied remove field books.isbn')
    const row = (await book())!
    expect(row).toMatchObject({ title: 'The Dispossessed', pages: 387 })
    expect(Object.keys(row)).not.toContain('isbn')
    const again = await runAdmin(['migrate', '--schema', file], server.dbPath)
    expect(again.status).toBe(0)
  })

  it("keeps a renamed field's values with renamedFrom, at start", async () => {
    const file = libraryFile('heading', (fields) => {
      delete fields.isbn
      const { title, ...rest } = fields
      for (const key of Object.keys(fields)) delete fields[key]
      Object.assign(fields, { heading: { ...title!, renamedFrom: 'title' }, ...rest })
    })
    const plan = await runAdmin(['schema', 'plan', '--schema', file], server.dbPath)
    expect(plan.stdout).toMatch(/^safe +rename field books\.title to books\.heading \(values kept\)/m)
    expect((await runAdmin(['migrate', '--schema', file], server.dbPath)).status).toBe(0)
    expect(await book()).toMatchObject({ heading: 'The Dispossessed', pages: 387 })
    // The file keeps its renamedFrom: the next start finds nothing to do.
    const after = await versions()
    expect((await runAdmin(['migrate', '--schema', file], server.dbPath)).status).toBe(0)
    expect(await versions()).toBe(after)
  })
})
