/**
 * The CLI learns the server it talks to (docs/cli.md, "How api learns the server"): against a
 * server of the contract's library, not the built-in example, the real CLI as a process lists,
 * creates, acts, suggests, helps and completes with the library's collections; it keeps what it
 * learned per profile and revalidates it with a 304; it works offline from that copy; and it says
 * plainly when a server has no document or cannot be reached and nothing is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { cachePath } from '../../cli/learn/cache.ts'
import { removeTempDirs, secret, spawnCli, tempDir } from './harness.ts'
import { type LibraryServer, startLibraryServer } from './library.ts'

let library: LibraryServer
/** Requests for the v2 document, counted by a proxy in front of the library's server. */
let documents: { status: number; conditional: boolean }[] = []
let proxy: ReturnType<typeof Bun.serve>
let env: Record<string, string>

beforeAll(async () => {
  library = await startLibraryServer()
  secret(library.token)
  proxy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url)
      const answer = await fetch(`${library.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
      })
      if (url.pathname === '/api/v2/openapi.json')
        documents.push({ status: answer.status, conditional: request.headers.has('if-none-match') })
      return answer
    },
  })
  env = { API_URL: proxy.url.origin, API_TOKEN: library.token, XDG_CONFIG_HOME: tempDir() }
})
afterAll(async () => {
  proxy.stop(true)
  await library.stop()
  removeTempDirs()
})

const api = async (...argv: string[]) => spawnCli(argv, env)
const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>

describe('a server of another schema (the library)', () => {
  it('is learned on first use and kept, then revalidated with a 304 on the next run', async () => {
    documents = []
    const first = await api('list', 'books')
    expect(first.code).toBe(0)
    expect(documents).toEqual([{ status: 200, conditional: false }])
    const kept = JSON.parse(readFileSync(cachePath(env, 'v2'), 'utf8'))
    expect(kept.server).toBe(proxy.url.origin)
    expect(Object.keys(kept.learned.resources)).toEqual(['authors', 'books', 'chapters'])
    const second = await api('list', 'authors')
    expect(second.code).toBe(0)
    expect(documents).toEqual([
      { status: 200, conditional: false },
      { status: 304, conditional: true },
    ])
  })

  it('creates with typed fields, lists with a filter, and runs an action', async () => {
    const author = await api('create', 'authors', 'name=Ursula', 'country=US')
    expect(author.code).toBe(0)
    const authorId = json(author.stdout).id as string
    const book = await api(
      'create',
      'books',
      'title=Earthsea',
      'isbn=978-0',
      `authorId=${authorId}`,
      'pages:=120',
    )
    expect(book.stderr).toBe('')
    expect(json(book.stdout)).toMatchObject({ title: 'Earthsea', pages: 120, status: 'available' })
    const id = json(book.stdout).id as string
    const available = await api('list', 'books', '--status', 'available')
    expect(available.code).toBe(0)
    expect((JSON.parse(available.stdout) as { id: string }[]).map((b) => b.id)).toContain(id)
    const lent = await api('action', 'books', id, 'lend')
    expect(lent.code).toBe(0)
    expect(json(lent.stdout)).toMatchObject({ id, status: 'lent' })
    const none = await api('list', 'books', '--status', 'available', '--pages-gte', '100')
    expect(JSON.parse(none.stdout)).toEqual([])
    const chapter = await api('create', `books/${id}/chapters`, 'title=One', 'number:=1')
    expect(json(chapter.stdout)).toMatchObject({ bookId: id, number: 1 })
  })

  it('types key=value by the learned field: a whole number, a boolean; an unknown enum value is refused', async () => {
    const author = json((await api('create', 'authors', 'name=Tove')).stdout).id as string
    const typed = await api(
      'create',
      'books',
      'title=Moomins',
      'isbn=978-1',
      `authorId=${author}`,
      'pages=96',
      'inPrint=false',
    )
    expect(typed.stderr).toBe('')
    expect(json(typed.stdout)).toMatchObject({ pages: 96, inPrint: false })
    const wrong = await api('update', 'books', json(typed.stdout).id as string, 'status=lnet')
    expect(wrong).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: status takes one of available, lent, lost (not "lnet"; did you mean lent?)\n',
    })
  })

  it('learns v1 from its own document, kept apart from v2', async () => {
    const run = await api('list', 'books', '--api-version', 'v1', '--status', 'lent')
    expect(run.code).toBe(0)
    expect((JSON.parse(run.stdout) as { status: string }[]).every((b) => b.status === 'lent')).toBe(true)
    expect(existsSync(cachePath(env, 'v1'))).toBe(true)
    expect(existsSync(cachePath(env, 'v2'))).toBe(true)
  })

  it.each([
    [['list', 'bokos'], 'unknown collection "bokos" (did you mean books?)'],
    [['list', 'books', '--stauts', 'lent'], 'unknown filter --stauts for books (did you mean --status?)'],
    [
      ['action', 'books', 'bok_1', 'lnd'],
      'books has no action "lnd" (did you mean lend?); its actions: lend',
    ],
  ])('suggests what was meant: api %j (exit 2)', async (argv, message) => {
    const run = await api(...argv)
    expect(run.code).toBe(2)
    expect(run.stderr).toStartWith(`api: ${message}`)
  })

  it('names the filters in api list books --help and the fields in api create books --help', async () => {
    const list = await api('list', 'books', '--help')
    expect(list.stdout).toContain(
      '--status <value>                status equals (several: a,b,c): available, lent, lost',
    )
    expect(list.stdout).toContain('--pages-gte <value>')
    expect(list.stdout).toContain('full-text search in title')
    expect(list.stdout).toContain('  api list books --status available\n')
    const create = await api('create', 'books', '--help')
    expect(create.stdout).toContain('  pages:=N                        a whole number (required)\n')
    expect(create.stdout).toContain(
      '  status=VALUE                    one of available, lent, lost (default "available")\n',
    )
    expect(create.stdout).toContain(
      '  authorId=ID                     the id of one of authors (aut_…) (required)\n',
    )
    const command = await api('action', '--help')
    expect(command.stdout).toContain('api action books bok_… lend')
  })

  it('prints a completion script that offers books and its filters', async () => {
    const run = await api('completion', 'bash')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      'words="users authors books chapters events webhook-endpoints deliveries oauth-clients"',
    )
    expect(run.stdout).toMatch(
      /books\) words="\$words --isbn --author-id --pages --pages-gte --pages-lte --status /,
    )
    expect(run.stdout).not.toContain('orders')
  })

  it('works from the kept copy when the server is down: help and completion, while a command fails as before', async () => {
    const offline = { ...env, API_URL: 'http://127.0.0.1:9' }
    // The copy is kept per server: the one of the proxy, now reached at a dead address.
    const copy = readFileSync(cachePath(env, 'v2'), 'utf8')
    await Bun.write(cachePath(offline, 'v2'), copy.replace(proxy.url.origin, offline.API_URL))
    const help = await spawnCli(['list', 'books', '--help'], offline)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('--status <value>')
    const completion = await spawnCli(['completion', 'fish'], offline)
    expect(completion.stdout).toContain('books')
    const list = await spawnCli(['list', 'books'], offline)
    expect(list.code).toBe(3)
    expect(list.stderr.trimEnd().split('\n').at(-1)).toStartWith('api: could not reach http://127.0.0.1:9 (')
  }, 30_000)
})

describe('without the document', () => {
  it('says plainly, in one line, when nothing is kept and the server cannot be reached (exit 3)', async () => {
    const fresh = { API_URL: 'http://127.0.0.1:9', XDG_CONFIG_HOME: tempDir() }
    const run = await spawnCli(['list', 'books', '--help'], fresh)
    expect(run).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'api: could not reach http://127.0.0.1:9 (connection refused) to learn its collections, and profile default keeps no copy of them from an earlier run\n',
    })
    expect(existsSync(cachePath(fresh, 'v2'))).toBe(false)
  })

  it('says plainly, in one line, that an older server has no API description (exit 1)', async () => {
    const older = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('Not Found', { status: 404 }),
    })
    try {
      const url = older.url.origin
      const run = await spawnCli(['list', 'books'], { API_URL: url, XDG_CONFIG_HOME: tempDir() })
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `api: ${url} has no API description at /api/v2/openapi.json (the server is older than this CLI, which learns its collections from it); api request METHOD PATH still works\n`,
      })
    } finally {
      older.stop(true)
    }
  })
})
