/**
 * `bun scripts/print-schema.ts --schema FILE` prints the GraphQL schema of a schema file of one's
 * own, read as `api-server --schema` reads it; a bad file exits 2 with its problem lines, the
 * same as `api-server` prints. Without `--schema`, the built-in example's (docs/graphql.md).
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../admin/run.ts'
import { CASES, edited } from './schema-file-cases.ts'

const dir = mkdtempSync(join(tmpdir(), 'api-print-schema-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const printSchema = (...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, 'scripts/print-schema.ts', ...args], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { status: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() }
}

describe('scripts/print-schema.ts', () => {
  it("prints a schema file's GraphQL schema: its types, queries and actions", () => {
    const run = printSchema('--schema', join(ROOT, 'test/schema/files/library.json'))
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    for (const line of [
      'type Book implements Node {',
      'lendBook(id: ID!): Book!',
      'type Chapter implements Node {',
    ])
      expect(run.stdout).toContain(line)
    expect(run.stdout).not.toContain('type Order ')
  })

  it("prints the built-in example's without --schema, as docs/graphql.md shows it", () => {
    const run = printSchema()
    expect(run.status).toBe(0)
    expect(readFileSync(join(ROOT, 'docs/graphql.md'), 'utf8')).toContain(run.stdout.trimEnd())
  })

  // A few of the bad files api-server refuses: the same lines, exit 2, nothing on stdout.
  for (const c of CASES.filter((c) => c.edit && !c.yaml).slice(0, 3)) {
    it(`refuses ${c.name} with exit 2 and the problem lines`, () => {
      const file = join(dir, `${c.name.replace(/\W+/g, '-')}.json`)
      writeFileSync(file, JSON.stringify(edited(c.edit!), null, 2))
      const run = printSchema('--schema', file)
      expect(run.stderr.trimEnd().split('\n')).toEqual(c.lines.map((line) => `${file}: ${line}`))
      expect(run.status).toBe(2)
      expect(run.stdout).toBe('')
    })
  }

  it('refuses --schema without a file with exit 2', () => {
    const run = printSchema('--schema')
    expect(run.stderr).toBe('print-schema: --schema needs a file\n')
    expect(run.status).toBe(2)
  })
})
