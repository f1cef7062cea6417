/**
 * Random invalid schemas refused (issue 26, item 7): a valid random file broken by one rule
 * (test/support/schema-mutations.ts), given to the real `api-server migrate --schema FILE --db FILE`,
 * stops it with exit 2, a line on standard error naming the place the change touched, and no
 * database made. PROPERTY_SEED replays a run; PROPERTY_INVALID_SCHEMAS runs more than twenty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { runAdmin } from '../admin/run.ts'
import { type BrokenSchema, brokenSchema } from '../support/schema-mutations.ts'

const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
const cases = Number(process.env.PROPERTY_INVALID_SCHEMAS ?? 20)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'api-invalid-schema-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let runs = 0

async function refused({ rule, file, places }: BrokenSchema) {
  runs += 1
  const path = join(dir, `schema-${runs}.json`)
  const db = join(dir, `never-${runs}.db`)
  writeFileSync(path, JSON.stringify(file, null, 2))
  const run = await runAdmin(['migrate', '--schema', path], db)
  const lines = run.stderr.trim().split('\n')
  // What a failure shows: the rule broken, where, and what the command said.
  expect({ rule, status: run.status, named: lines.some((l) => places.some((p) => l.includes(p))) }).toEqual({
    rule,
    status: 2,
    named: true,
  })
  for (const line of lines) expect(line).toStartWith(`${path}: `)
  expect(existsSync(db)).toBe(false)
}

describe('api-server migrate --schema with a random invalid file', () => {
  it('exits 2 naming the place the change broke, and makes no database', async () => {
    await fc.assert(fc.asyncProperty(brokenSchema, refused), { seed, numRuns: cases, endOnFailure: true })
  }, 300_000)
})
