/**
 * The schema file's operator commands (docs/schema.md): `init` writes a starter that passes the
 * check and serves, `schema print` prints a file that serves the same API, `schema json-schema` is
 * the published docs/api-schema.schema.json, and `seed` says what a schema of one's own gets.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminDatabase, ROOT, runAdmin, runOk, startServe } from '../admin/run.ts'

const LIBRARY = join(import.meta.dir, 'files/library.json')
const dir = mkdtempSync(join(tmpdir(), 'api-schema-commands-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The OpenAPI document of a server started with these arguments. */
async function openApiOf(args: string[]): Promise<unknown> {
  // One public origin, so the documents' URLs do not differ by port.
  const server = await startServe([
    '--port',
    '0',
    '--db',
    ':memory:',
    '--base-url',
    'http://api.test',
    ...args,
  ])
  try {
    return await (await fetch(`${server.url}/api/v2/openapi.json`)).json()
  } finally {
    await server.stop()
  }
}

describe('api-server init', () => {
  const cwd = join(dir, 'init')

  it('writes the starter and its JSON Schema, and says what to do next', async () => {
    rmSync(cwd, { recursive: true, force: true })
    mkdirSync(cwd)
    const run = await runAdmin(['init'], null, { cwd })
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('api-server serve --schema api.schema.json')
    const starter = JSON.parse(readFileSync(join(cwd, 'api.schema.json'), 'utf8'))
    expect(starter.$schema).toBe('./api-schema.schema.json')
    expect(Object.keys(starter.resources)).toEqual(['authors', 'books', 'chapters'])
    expect(JSON.parse(readFileSync(join(cwd, 'api-schema.schema.json'), 'utf8'))).toEqual(
      JSON.parse(readFileSync(join(ROOT, 'docs/api-schema.schema.json'), 'utf8')),
    )
  })

  it('refuses to overwrite a file: exit 1, one line, the file unchanged', async () => {
    const file = join(cwd, 'mine.json')
    writeFileSync(file, 'mine')
    const run = await runAdmin(['init', file], null, { cwd })
    expect(run.status).toBe(1)
    expect(run.stderr).toBe(`api-server: ${file} exists; init never overwrites a file (give another name)\n`)
    expect(readFileSync(file, 'utf8')).toBe('mine')
  })

  it('writes a starter that serves books, chapters and the lend action', async () => {
    const document = (await openApiOf(['--schema', join(cwd, 'api.schema.json')])) as {
      paths: Record<string, unknown>
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v2/authors',
        '/api/v2/books/{id}/lend',
        '/api/v2/books/{parentId}/chapters',
      ]),
    )
  })
})

describe('api-server serve --schema on a database with no organization', () => {
  it("names the schema file in the admin steps it prints, so a client gets the schema's scopes", async () => {
    const db = join(dir, 'hint.db')
    const server = await startServe(['--port', '0', '--db', db, '--schema', LIBRARY])
    expect(await server.stop()).toBe(0)
    for (const step of ['org create --name', 'user create --org', 'client create --name', 'seed'])
      expect(server.stderr()).toContain(`npm run -s api-server -- --db ${db} --schema ${LIBRARY} ${step}`)
  })
})

describe('api-server schema', () => {
  it('json-schema prints docs/api-schema.schema.json as published', async () => {
    const printed = await runAdmin(['schema', 'json-schema'], null)
    expect(printed.status).toBe(0)
    expect(printed.stdout).toBe(readFileSync(join(ROOT, 'docs/api-schema.schema.json'), 'utf8'))
  })

  it('print gives back a file that serves the same API, for the library and the built-in example', async () => {
    for (const args of [['--schema', LIBRARY], []]) {
      const printed = await runOk(['schema', 'print', ...args], join(dir, 'unused.db'))
      const file = join(dir, `printed-${args.length}.json`)
      writeFileSync(file, printed)
      expect(JSON.parse(printed).$schema).toBe('./api-schema.schema.json')
      expect(await openApiOf(['--schema', file])).toEqual(await openApiOf(args))
    }
    // print touches no database.
    expect(existsSync(join(dir, 'unused.db'))).toBe(false)
  })

  it('names the actions it has for one it does not', async () => {
    const run = await runAdmin(['schema', 'show'], null)
    expect(run.status).toBe(2)
    expect(run.stderr).toBe(
      'api-server: unknown action "schema show" (try: schema print; schema json-schema)\n',
    )
  })
})

describe('api-server seed --schema', () => {
  it('loads the organizations and users only, and says the demo records are the example', async () => {
    const db = await adminDatabase(dir, 'seeded')
    const out = await runOk(['seed', '--schema', LIBRARY], db)
    expect(out).toStartWith(
      'Loaded the demo data.\nThe demo records belong to the built-in example: this schema gets the organizations and users only.\n',
    )
    expect(out).toContain('alice@acme.example')
  })
})
