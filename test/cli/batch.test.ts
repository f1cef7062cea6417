import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, loggedInEnv } from './fixtures.ts'
import { removeTempDirs, runCli, spawnCli, tempDir } from './harness.ts'

/** `api batch FILE` against a server of the contract's library (docs/cli.md, "Batches"). */

let server: TestServer
let tenant: Tenant
let env: Env
let dir: string

beforeAll(async () => {
  server = await startTestServer({ schema: librarySchema() })
  tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  dir = tempDir()
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const operations = (isbn: string, pages = 144) => [
  { method: 'POST', path: '/api/v2/authors', body: { name: 'Martha Wells' }, ref: 'a' },
  {
    method: 'POST',
    path: '/api/v2/books',
    body: { title: 'Murderbot', authorId: '${a.id}', pages, isbn },
    ref: 'b',
  },
  { method: 'POST', path: '/api/v2/books/${b.id}/lend' },
]

function file(name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value))
  return path
}

describe('api batch FILE', () => {
  it('runs {"operations": [...]} from a file (as a subprocess), printing the answer as JSON when piped', async () => {
    const run = await spawnCli(['batch', file('one.json', { operations: operations('cli-1') })], env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const { results } = JSON.parse(run.stdout) as {
      results: { status: number; body: Record<string, unknown> }[]
    }
    expect(results.map((r) => r.status)).toEqual([201, 201, 200])
    expect(results[2]!.body).toMatchObject({
      id: results[1]!.body.id,
      status: 'lent',
      authorId: results[0]!.body.id,
    })
  })

  it('takes a bare array on standard input, and shows op, status and id in a table on a terminal', async () => {
    const run = await runCli(['batch', '-'], {
      env: { ...env, NO_COLOR: '1' },
      tty: true,
      stdin: JSON.stringify(operations('cli-2')),
    })
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]!.split(/\s+/)).toEqual(['OP', 'METHOD', 'PATH', 'STATUS', 'ID'])
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ['0', 'POST', '/api/v2/authors', '201'],
      ['1', 'POST', '/api/v2/books', '201'],
      ['2', 'POST', '/api/v2/books/${b.id}/lend', '200'],
    ])
    expect(lines[1]).toMatch(/aut_[0-9a-z]{26}$/)
  })

  it('exits 1 with the error naming the operation on stderr, and writes nothing', async () => {
    const before = await server.sql.count('authors', tenant.orgId)
    const run = await spawnCli(['batch', file('bad.json', operations('cli-3', 0))], env)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('VALIDATION_ERROR (422): operations[1] (POST /api/v2/books)')
    expect(run.stderr).toContain('operations[1].body.pages: must be at least 1')
    expect(await server.sql.count('authors', tenant.orgId)).toBe(before)
  })

  it('sends a fresh Idempotency-Key, or the one given, which replays the first answer', async () => {
    const path = file('keyed.json', operations('cli-4'))
    const first = await runCli(['batch', path, '--idempotency-key', 'cli-batch-1'], { env })
    const again = await runCli(['batch', path, '--idempotency-key', 'cli-batch-1'], { env })
    expect([first.code, again.code]).toEqual([0, 0])
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout))
    expect(first.requests.at(-1)!.headers.get('idempotency-key')).toBe('cli-batch-1')
    const fresh = await runCli(['batch', file('fresh.json', operations('cli-5'))], { env })
    expect(fresh.requests.at(-1)!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it.each([
    ['a file that is not JSON', 'nope.json', '{', 'is not valid JSON'],
    ['a file that holds neither', 'number.json', '5', 'must hold {"operations": [...]}'],
  ])('refuses %s as a usage error (exit 2)', async (_, name, text, message) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    const run = await runCli(['batch', path], { env })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
  })

  it('refuses --api-version v1, which has no batches', async () => {
    const run = await runCli(['batch', '-', '--api-version', 'v1'], { env, stdin: '[]' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('v2 only')
  })
})
