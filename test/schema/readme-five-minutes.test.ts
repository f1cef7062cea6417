/**
 * README's "Your own API in five minutes", run as written with bash: `init`, the edit it describes,
 * `serve --schema` with the block's own arguments, and the CLI block against that server. One
 * change only: `api login` uses client credentials, as the device flow needs a person at a browser.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, runOk, startServe } from '../admin/run.ts'
import { BUN, CLI, jqAvailable, removeTempDirs, tempDir } from '../cli/harness.ts'

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const SECTION = README.slice(
  README.indexOf('## Your own API in five minutes'),
  README.indexOf('## The server: `api-server`'),
)
// The blocks are indented under their list items.
const [INIT = '', SERVE = '', USE = '', BULK = ''] = [...SECTION.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
  m[1]!.replace(/^ {3}/gm, '').trim(),
)
const dir = tempDir('api-readme-five-')
afterAll(removeTempDirs)

/** Runs `script` with bash in the tutorial's directory, `api` and `api-server` being the checkout's. */
async function bash(script: string, env: Record<string, string> = {}) {
  const prelude = `api() { "${BUN}" "${CLI}" "$@"; }\napi-server() { "${BUN}" "${join(ROOT, 'server/main.ts')}" "$@"; }\nset -e\n`
  const run = Bun.spawn(['bash', '-c', prelude + script], {
    cwd: dir,
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), API_URL: undefined, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, status] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  return { stdout, stderr, status }
}

describe.if(jqAvailable)("README's own API in five minutes", () => {
  it('has its four blocks', () => {
    expect(INIT).toBe('api-server init library.json')
    expect(BULK).toContain('api import books books.csv')
    expect(SERVE).toStartWith('api-server serve --schema library.json')
    expect(USE).toContain('api login')
  })

  it('runs as written: a library of your own through the CLI and GraphQL', async () => {
    mkdirSync(join(dir, 'data'), { recursive: true })
    expect((await bash(INIT)).status).toBe(0)
    // Step 2: the field the README adds, as it spells it.
    const year = /`("year": \{[^`]+\})`/.exec(SECTION)![1]!.replace(/\s+/g, ' ')
    const file = join(dir, 'library.json')
    const library = JSON.parse(readFileSync(file, 'utf8'))
    Object.assign(library.resources.books.fields, JSON.parse(`{${year}}`))
    writeFileSync(file, JSON.stringify(library, null, 2))

    const args = SERVE.split(/\s+/).slice(2)
    args[args.indexOf('--port') + 1] = '0'
    const server = await startServe(args, { cwd: dir })
    try {
      const client = JSON.parse(
        await runOk(
          ['client', 'create', '--name', 'readme', '--org', 'Acme', '--schema', 'library.json', '--json'],
          'data/library.db',
          { cwd: dir },
        ),
      )
      const script = USE.replace(/^export API_URL=.*$/m, `export API_URL=${server.url}`).replace(
        /^api login$/m,
        'api login --client-credentials',
      )
      const run = await bash(script, {
        API_CLIENT_ID: client.client_id,
        API_CLIENT_SECRET: client.client_secret,
      })
      expect(run.stderr).not.toContain('error')
      expect(run.status).toBe(0)
      expect(run.stdout).toContain('"status":"lent"')
      expect(run.stdout).toContain('"year":1974')
      expect(run.stdout).toContain('"name":"Ursula K. Le Guin"')

      // Step 5, in bulk: the import, the aggregate, the export and the batch.
      const env = { API_CLIENT_ID: client.client_id, API_CLIENT_SECRET: client.client_secret }
      const bulk = await bash(`export API_URL=${server.url}\n${BULK}`, env)
      expect(bulk.stderr).not.toContain('error')
      expect(bulk.status).toBe(0)
      // The import's summary line, the groups (a JSON array, a group a line), the batch's answer.
      const lines = bulk.stdout.trim().split('\n')
      const imported = JSON.parse(lines[0]!)
      const groups = JSON.parse(lines.slice(1, -1).join('\n'))
      const batch = JSON.parse(lines.at(-1)!)
      expect(imported).toMatchObject({ created: 2, alreadyImported: 0 })
      // The Dispossessed (387 pages) lent; the two imported books available.
      expect(groups).toEqual([
        { status: 'available', count: 2, sum: { pages: 463 } },
        { status: 'lent', count: 1, sum: { pages: 387 } },
      ])
      expect(batch.results.map((r: { status: number }) => r.status)).toEqual([201, 201])
      const exported = readFileSync(join(dir, 'books-export.csv'), 'utf8').split('\r\n')
      expect(exported[0]).toStartWith('id,title,')
      expect(exported.filter((line) => line.includes('Lavinia')).length).toBe(1)
      expect(exported.length).toBe(1 + 3 + 1)
    } finally {
      await server.stop()
    }
  })
})
