import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  BUN,
  CLI,
  ROOT,
  removeTempDirs,
  spawnCli,
  spawnCliOnTerminal,
  tempDir,
  terminalAvailable,
} from '../cli/harness.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { author, counts, importSchema } from './fixtures.ts'

let server: TestServer
let tenant: Tenant
let env: Record<string, string>
let dir: string
let authorId: string

beforeAll(async () => {
  server = await startTestServer({ schema: importSchema() })
  tenant = await server.tenant()
  authorId = await author(tenant)
  dir = tempDir('api-import-')
  env = { API_URL: server.url, API_TOKEN: tenant.token, XDG_CONFIG_HOME: join(dir, 'config') }
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

/** A CSV file of `n` authors (names unique, to count each exactly once) and its path. */
function authorsFile(name: string, n: number, from = 0): string {
  const lines = ['name,country']
  for (let i = from; i < from + n; i++) lines.push(`"Author ${name} ${i}",${i % 2 === 0 ? 'DE' : ''}`)
  const file = join(dir, `${name}.csv`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

async function authorsNamed(prefix: string): Promise<{ total: number; distinct: number }> {
  const row = await server.sql.get<{ total: number | string; unique_names: number | string }>(
    'SELECT count(*) AS total, count(DISTINCT name) AS unique_names FROM authors WHERE org_id = ? AND name LIKE ?',
    tenant.orgId,
    `Author ${prefix} %`,
  )
  return { total: Number(row?.total), distinct: Number(row?.unique_names) }
}

describe('api import COLLECTION FILE (piped)', () => {
  it('creates every row and prints one JSON summary; run again, every chunk is already imported', async () => {
    const file = authorsFile('piped', 3000)
    const first = await spawnCli(['import', 'authors', file, '--chunk-size', '250'], env)
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 3000, alreadyImported: 0, chunks: 12 })
    const again = await spawnCli(['import', 'authors', file, '--chunk-size', '250'], env)
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, alreadyImported: 3000, chunks: 12 })
    expect(await authorsNamed('piped')).toEqual({ total: 3000, distinct: 3000 })
  })

  it('interrupted with Ctrl-C and run again: every row exactly once', async () => {
    const file = authorsFile('interrupted', 3000)
    const argv = ['import', 'authors', file, '--chunk-size', '10']
    const child = Bun.spawn([BUN, CLI, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    // Interrupted once some chunks are in, long before the 300th.
    for (let i = 0; i < 400 && (await authorsNamed('interrupted')).total < 200; i++) await Bun.sleep(25)
    child.kill('SIGINT')
    expect(await child.exited).toBe(130)
    expect(await new Response(child.stderr).text()).toMatch(
      /^interrupted: [\d,]+ records in \(\d+ chunks\); run the same command again to go on, nothing is created twice\n$/,
    )
    const partial = (await authorsNamed('interrupted')).total
    expect(partial).toBeGreaterThan(0)
    expect(partial).toBeLessThan(3000)
    const rerun = await spawnCli(argv, env)
    expect(rerun.code).toBe(0)
    const summary = JSON.parse(rerun.stdout) as { created: number; alreadyImported: number }
    expect(summary.created + summary.alreadyImported).toBe(3000)
    expect(summary.alreadyImported).toBeGreaterThanOrEqual(partial - 10)
    expect(await authorsNamed('interrupted')).toEqual({ total: 3000, distinct: 3000 })
    expect((await counts(server, tenant.orgId, 'authors', 'authors')).events).toBe(
      (await counts(server, tenant.orgId, 'authors', 'authors')).rows,
    )
  })

  it("stops at a failing chunk, naming the file's row and line and what was imported before it", async () => {
    const lines = ['title,isbn,authorId,pages']
    for (let i = 1; i <= 1500; i++) lines.push(`Book ${i},isbn-${i},${authorId},${i === 1234 ? 'many' : i}`)
    const file = join(dir, 'books.csv')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const run = await spawnCli(['import', 'books', file], env)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('row 1234 (line 1235): pages: must be an integer')
    expect(run.stderr).toContain(
      'A row is not valid. 1000 records were imported before this chunk; nothing of it was written.',
    )
    expect((await counts(server, tenant.orgId, 'books', 'books')).rows).toBe(1000)
  })

  it('--dry-run validates every row and writes nothing', async () => {
    const file = authorsFile('dry', 120)
    const run = await spawnCli(['import', 'authors', file, '--dry-run', '--chunk-size', '50'], env)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ validated: 120, chunks: 3 })
    expect((await authorsNamed('dry')).total).toBe(0)
    writeFileSync(file, 'name,country\nGood,DE\nBad,Germany\n')
    const bad = await spawnCli(['import', 'authors', file, '--dry-run'], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('row 2 (line 3): country')
  })

  it('reads NDJSON from standard input with --format ndjson', async () => {
    const body = '{"name":"Author stdin 1"}\n\n{"name":"Author stdin 2","country":"FR"}\n'
    const run = await spawnCli(['import', 'authors', '-', '--format', 'ndjson'], env, body)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 2 })
    expect((await authorsNamed('stdin')).total).toBe(2)
  })

  const usage: [string, string[], string][] = [
    ['a file of no known format', ['import', 'authors', 'people.txt'], 'cannot tell the format'],
    [
      'a chunk size over 1000',
      ['import', 'authors', 'x.csv', '--chunk-size', '1001'],
      '--chunk-size takes 1 to 1000',
    ],
    ['another --format', ['import', 'authors', 'x.csv', '--format', 'xml'], 'csv or ndjson'],
    ['a file that is not there', ['import', 'authors', 'missing.csv'], 'no file missing.csv'],
  ]
  for (const [name, argv, message] of usage) {
    it(`exit 2 for ${name}`, async () => {
      const run = await spawnCli(argv, env)
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
    })
  }
})

describe.skipIf(!terminalAvailable)('api import on a terminal', () => {
  it('draws a progress line and ends with a sentence', async () => {
    const file = authorsFile('terminal', 400)
    const run = await spawnCliOnTerminal(['import', 'authors', file, '--chunk-size', '50'], env)
    expect(run.code).toBe(0)
    expect(run.output).toMatch(/\[#+\] 400 records {2}[\d,]+\/s {2}100% {2}00:00 left/)
    expect(run.output).toContain('Imported into authors: 400 created, 0 already imported (8 chunks')
  })
})
