/**
 * A bad schema file stops every command before anything is touched (contract, "Your own
 * resources"): exit 2, one line per problem naming its place in the file, and no database made.
 * One case per rule of docs/schema.md (schema-file-cases.ts), in JSON and in YAML, through the real
 * `api-server`.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAdmin } from '../admin/run.ts'
import { CASES, commented, edited } from './schema-file-cases.ts'

const dir = mkdtempSync(join(tmpdir(), 'api-schema-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('api-server with a good --schema file', () => {
  for (const yaml of [false, true]) {
    it(`accepts $comment and description where they may go, and leaves the notes out (${yaml ? 'YAML' : 'JSON'})`, async () => {
      const file = join(dir, `commented.${yaml ? 'yml' : 'json'}`)
      writeFileSync(file, yaml ? Bun.YAML.stringify(commented) : JSON.stringify(commented))
      const run = await runAdmin(['schema', 'print', '--schema', file], null)
      expect(run.stderr).toBe('')
      expect(run.status).toBe(0)
      expect(run.stdout).not.toContain('"the ')
      const printed = JSON.parse(run.stdout)
      expect(printed.resources.books.description).toBe('Books on the shelves.')
      expect(printed.resources.books.fields.title.description).toBe('As printed on the cover.')
      expect(printed.resources.books.fields.notes.default).toEqual({ $comment: 'kept: a value' })
    })
  }
})

describe('api-server with a bad --schema file', () => {
  for (const [i, c] of CASES.entries()) {
    it(`refuses ${c.name}: exit 2, the exact lines, no database`, async () => {
      const file = join(dir, `case-${i}.${c.yaml ? 'yaml' : 'json'}`)
      const value =
        c.text ?? (c.yaml ? Bun.YAML.stringify(edited(c.edit!)) : JSON.stringify(edited(c.edit!), null, 2))
      writeFileSync(file, value)
      const db = join(dir, `case-${i}.db`)
      const run = await runAdmin(['migrate', '--schema', file], db)
      expect(run.stderr.trimEnd().split('\n')).toEqual(c.lines.map((line) => `${file}: ${line}`))
      expect(run.status).toBe(2)
      expect(run.stdout).toBe('')
      expect(existsSync(db)).toBe(false)
    })
  }

  it('refuses through API_SCHEMA on serve too, before opening anything', async () => {
    const file = join(dir, 'env.json')
    writeFileSync(
      file,
      JSON.stringify(
        edited((f) => {
          f.resources.books.fields.authorId.to = 'writers'
        }),
      ),
    )
    const db = join(dir, 'env.db')
    const run = await runAdmin(['serve', '--port', '0'], db, { env: { API_SCHEMA: file }, timeoutMs: 20_000 })
    expect(run.stderr).toBe(`${file}: resources.books.fields.authorId.to: no collection "writers"\n`)
    expect(run.status).toBe(2)
    expect(existsSync(db)).toBe(false)
  })

  it('names a file that is not there', async () => {
    const file = join(dir, 'missing.json')
    const run = await runAdmin(['org', 'list', '--schema', file], join(dir, 'missing.db'))
    expect(run.stderr).toBe(`${file}: (the file): no such file\n`)
    expect(run.status).toBe(2)
  })
})
