/**
 * Smoke-runs bulk and summary on the compiled binaries, from an empty directory, as a newcomer
 * would: `init` writes the starter (a library), `serve` serves it; the compiled `api` imports a
 * CSV of books in chunks (run twice: the second run creates nothing), counts and sums them by
 * group, exports them back to CSV (read back by csv-parse and compared with the file imported),
 * and sends a batch whose last operation fails, which leaves nothing behind.
 * Usage: bun scripts/bulk-smoke.ts dist/api-server dist/api [ROWS]
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parse } from 'csv-parse/sync'
import { runCompiledCli, type SmokeClient, smokePort } from './smoke-support.ts'

const binary = resolve(process.argv[2] ?? 'dist/api-server')
const cliBinary = resolve(process.argv[3] ?? 'dist/api')
const ROWS = Number(process.argv[4] ?? 5000)
const dir = mkdtempSync(join(tmpdir(), 'api-bulk-smoke-'))
const server = join(dir, 'api-server')
copyFileSync(binary, server)
const env = { PATH: '/usr/bin:/bin', API_SCHEMA: 'api.schema.json' }
const step = (message: string) => console.log(`bulk-smoke: ${message}`)

/** Runs an admin command in the directory; throws unless it exits 0. */
const run = (args: string[]) => {
  const result = Bun.spawnSync([server, ...args], { cwd: dir, env })
  if (result.exitCode !== 0)
    throw new Error(`api-server ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.toString()}`)
  return result.stdout.toString()
}

const port = smokePort()
const url = `http://127.0.0.1:${port}`

/** Runs the compiled `api` with the smoke client's credentials; its output, or a throw unless it exits `status`. */
function api(client: SmokeClient, args: string[], status = 0) {
  const output = runCompiledCli({ binary: cliBinary, dir, url, client }, args, status)
  step(`api ${args.join(' ')} -> exit ${status}`)
  return output
}

let child: ReturnType<typeof Bun.spawn> | undefined
try {
  step(run(['init']).split('\n')[0]!)
  run(['migrate'])
  const org = JSON.parse(run(['org', 'create', '--name', 'Bulk', '--json'])) as { id: string }
  const client = JSON.parse(run(['client', 'create', '--name', 'bulk', '--org', org.id, '--json']))
  child = Bun.spawn([server, 'serve', '--port', String(port)], {
    cwd: dir,
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  for (
    let i = 0;
    !(await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 100) throw new Error('the server did not start')
    await Bun.sleep(100)
  }
  api(client, ['login', '--client-credentials'])
  const author = JSON.parse(api(client, ['create', 'authors', 'name=Ursula', 'country=US']).stdout)
  const statuses = ['available', 'lent']
  const lines = ['title,isbn,authorId,pages,status']
  for (let i = 0; i < ROWS; i++)
    lines.push(`"Book, ""${i}""",isbn-${i},${author.id},${100 + (i % 400)},${statuses[i % 2]}`)
  writeFileSync(join(dir, 'books.csv'), `${lines.join('\n')}\n`)

  const first = JSON.parse(api(client, ['import', 'books', 'books.csv']).stdout)
  const again = JSON.parse(api(client, ['import', 'books', 'books.csv']).stdout)
  if (first.created !== ROWS || again.created !== 0 || again.alreadyImported !== ROWS)
    throw new Error(`api import printed ${JSON.stringify(first)}, then ${JSON.stringify(again)}`)
  step(`import: ${ROWS} created, then ${ROWS} already imported`)
  const counted = JSON.parse(
    api(client, ['aggregate', 'books', '--group-by', 'status', '--count', '--sum', 'pages']).stdout,
  )
  const expected = (status: string) => {
    const rows = [...Array(ROWS).keys()].filter((i) => statuses[i % 2] === status)
    return { count: rows.length, pages: rows.reduce((sum, i) => sum + 100 + (i % 400), 0) }
  }
  for (const status of statuses) {
    const group = (counted as { status: string; count: number; sum: { pages: number } }[]).find(
      (g) => g.status === status,
    )
    const want = expected(status)
    if (group?.count !== want.count || group.sum.pages !== want.pages)
      throw new Error(`api aggregate: ${status} is ${JSON.stringify(group)}, not ${JSON.stringify(want)}`)
  }
  step(`aggregates: every book counted once, pages summed (${ROWS} rows imported twice)`)

  const exported = api(client, [
    'list',
    'books',
    '--format',
    'csv',
    '--all',
    '--fields',
    'title,isbn,authorId,pages,status',
  ]).stdout
  const rows = parse(exported, { columns: true }) as Record<string, string>[]
  const imported = parse(lines.join('\n'), { columns: true }) as Record<string, string>[]
  const byIsbn = new Map(rows.map((row) => [row.isbn, row]))
  if (rows.length !== ROWS) throw new Error(`the export has ${rows.length} rows, not ${ROWS}`)
  for (const row of imported) {
    const back = byIsbn.get(row.isbn)
    for (const name of Object.keys(row))
      if (back?.[name] !== row[name])
        throw new Error(`exported ${name} of ${row.isbn} is ${back?.[name]}, not ${row[name]}`)
  }
  step('export: every row back, cell for cell')

  const batch = {
    operations: [
      { method: 'POST', path: '/api/v2/authors', body: { name: 'Octavia', country: 'US' }, ref: 'a' },
      { method: 'POST', path: '/api/v2/books', body: { title: 'Kindred', authorId: '${a.id}', pages: 264 } },
      { method: 'POST', path: '/api/v2/books', body: { title: 'Dawn', authorId: '${a.id}', pages: 'many' } },
    ],
  }
  writeFileSync(join(dir, 'batch.json'), JSON.stringify(batch))
  const failed = api(client, ['batch', 'batch.json'], 1)
  if (!failed.stderr.includes('operations[2].body.pages'))
    throw new Error(`api batch printed: ${failed.stderr}`)
  const authors = JSON.parse(api(client, ['list', 'authors', '--all']).stdout) as unknown[]
  if (authors.length !== 1) throw new Error(`after a failed batch there are ${authors.length} authors`)
  step('batch: its last operation failed, nothing written')
} finally {
  child?.kill('SIGTERM')
  await child?.exited
  rmSync(dir, { recursive: true, force: true })
}
