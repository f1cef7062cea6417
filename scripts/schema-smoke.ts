/**
 * Smoke-runs a compiled `api-server` on a schema file of one's own, from an empty directory:
 * `init` writes the starter (a library), `serve --schema` serves it, records are created, listed
 * and lent through HTTP; then the file changes between starts: a field added (the next start
 * applies it, the records intact), a field removed (the start refuses, `schema plan` shows it,
 * `schema apply --allow-destructive` applies it). The compiled `api` learns the library from the
 * server and lists, creates and lends through it.
 * Usage: bun scripts/schema-smoke.ts dist/api-server dist/api
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { runCompiledCli, type SmokeClient, smokePort } from './smoke-support.ts'

const binary = resolve(process.argv[2] ?? 'dist/api-server')
const cliBinary = resolve(process.argv[3] ?? 'dist/api')
const dir = mkdtempSync(join(tmpdir(), 'api-schema-smoke-'))
const server = join(dir, 'api-server')
copyFileSync(binary, server)

/** Runs the compiled `api` against `url` with the smoke client's credentials; its JSON output. */
const api = (url: string, client: SmokeClient, args: string[]) => {
  const { stdout } = runCompiledCli({ binary: cliBinary, dir, url, client }, args)
  step(`api ${args.join(' ')} -> exit 0`)
  return stdout
}
const FILE = 'api.schema.json'
const env = { PATH: '/usr/bin:/bin', API_SCHEMA: FILE }
const step = (message: string) => console.log(`schema-smoke: ${message}`)

/** Runs an admin command in the directory; throws unless it exits with `status`. */
const run = (args: string[], status = 0) => {
  const result = Bun.spawnSync([server, ...args], { cwd: dir, env })
  if (result.exitCode !== status)
    throw new Error(`api-server ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.toString()}`)
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

/** Edits the schema file's books. */
const editBooks = (edit: (fields: Record<string, unknown>) => void) => {
  const file = JSON.parse(readFileSync(join(dir, FILE), 'utf8'))
  edit(file.resources.books.fields)
  writeFileSync(join(dir, FILE), JSON.stringify(file, null, 2))
}

// One port for every start: the tokens' issuer is the server's address.
const port = smokePort()

/** `serve` until `body` is done, then SIGTERM and a clean exit. */
async function serving(body: (url: string) => Promise<void>) {
  const child = Bun.spawn([server, 'serve', '--port', String(port)], {
    cwd: dir,
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${port}`
  for (
    let i = 0;
    !(await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 100 || child.exitCode !== null) {
      child.kill()
      throw new Error(`the server did not start: ${await new Response(child.stderr).text()}`)
    }
    await Bun.sleep(100)
  }
  try {
    await body(url)
  } catch (error) {
    child.kill()
    throw error
  }
  child.kill('SIGTERM')
  const code = await child.exited
  if (code !== 0) throw new Error(`api-server exited ${code} after SIGTERM`)
}

try {
  step(run(['init']).stdout.split('\n')[0]!)
  step(`migrate -> ${run(['migrate', '--json']).stdout.trim()}`)
  const org = JSON.parse(run(['org', 'create', '--name', 'Smoke', '--json']).stdout) as { id: string }
  const client = JSON.parse(run(['client', 'create', '--name', 'smoke', '--org', org.id, '--json']).stdout)
  let token = ''
  /** A request with the client's token; throws unless it answers `status`. */
  const call = async (url: string, method: string, path: string, status: number, json?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    const text = await response.text()
    if (response.status !== status) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    step(`${method} ${path} -> ${status}`)
    return JSON.parse(text)
  }
  let bookId = ''

  await serving(async (url) => {
    const basic = btoa(`${client.client_id}:${client.client_secret}`)
    const issued = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    })
    token = ((await issued.json()) as { access_token: string }).access_token
    const author = await call(url, 'POST', '/api/v2/authors', 201, { name: 'Ursula', country: 'US' })
    const book = { title: 'The Dispossessed', authorId: author.id, pages: 387 }
    bookId = (await call(url, 'POST', '/api/v2/books', 201, book)).id
    const list = await call(url, 'GET', '/api/v2/books?status=available', 200)
    if (list.data.length !== 1) throw new Error(`the list has ${list.data.length} books`)
    const lent = await call(url, 'POST', `/api/v2/books/${bookId}/lend`, 200)
    if (lent.status !== 'lent') throw new Error(`the lent book is ${lent.status}`)
    // The CLI, which knows nothing of books until it asks the server.
    api(url, client, ['login', '--client-credentials'])
    const made = JSON.parse(
      api(url, client, ['create', 'books', 'title=Lavinia', `authorId=${author.id}`, 'pages=279']),
    )
    api(url, client, ['action', 'books', made.id, 'lend'])
    const listed = JSON.parse(api(url, client, ['list', 'books', '--status', 'lent'])) as { id: string }[]
    if (listed.length !== 2) throw new Error(`api list books --status lent printed ${listed.length} books`)
  })

  editBooks((fields) => {
    fields.subtitle = { type: 'text', max: 200, nullable: true }
  })
  await serving(async (url) => {
    const book = await call(url, 'GET', `/api/v2/books/${bookId}`, 200)
    if (book.subtitle !== null || book.pages !== 387)
      throw new Error(`after a field added: ${JSON.stringify(book)}`)
    await call(url, 'PATCH', `/api/v2/books/${bookId}`, 200, { subtitle: 'An Ambiguous Utopia' })
  })

  editBooks((fields) => {
    delete fields.pages
  })
  const refused = run(['serve'], 1).stderr
  if (!refused.includes('books.pages'))
    throw new Error(`the refused start does not name the field: ${refused}`)
  step('serve with a field removed -> refused, exit 1')
  const plan = run(['schema', 'plan']).stdout
  if (!/^destructive +remove field books\.pages/m.test(plan)) throw new Error(`schema plan printed: ${plan}`)
  step('schema plan -> the removal, destructive')
  run(['schema', 'apply', '--allow-destructive'])
  step('schema apply --allow-destructive -> exit 0')
  await serving(async (url) => {
    const book = await call(url, 'GET', `/api/v2/books/${bookId}`, 200)
    if ('pages' in book || book.subtitle !== 'An Ambiguous Utopia' || book.status !== 'lent')
      throw new Error(`after a field removed: ${JSON.stringify(book)}`)
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
