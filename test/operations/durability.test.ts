import { describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../server/store/sqlite/db.ts'
import type { Durability } from '../../server/store/types.ts'
import { adminCommand, runAdmin } from '../admin/run.ts'

const newDb = () => join(mkdtempSync(join(tmpdir(), 'api-durability-')), 'api.db')

/** PRAGMA synchronous: 1 is NORMAL, 2 is FULL (sqlite.org/pragma.html#pragma_synchronous). */
const synchronousOf = (durability?: Durability) => {
  const db = openDatabase(newDb(), durability)
  try {
    return (db.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous
  } finally {
    db.close()
  }
}

/** Starts `api-server serve` on a free port and returns the line it prints once listening. */
async function listeningLine(args: string[], env: Record<string, string> = {}): Promise<string> {
  const proc = Bun.spawn(adminCommand(['serve', '--port', '0', ...args], newDb()), {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ...env },
  })
  try {
    // The line for people is on stderr; stdout has the JSON log only.
    const reader = proc.stderr.getReader()
    let output = ''
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      output += new TextDecoder().decode(value)
      const line = output.split('\n').find((l) => l.includes('listening on'))
      if (line) return line
    }
    throw new Error(`serve did not start: ${output}`)
  } finally {
    proc.kill('SIGKILL')
  }
}

describe('durability (docs/operations.md, "Durability")', () => {
  it('syncs every commit by default (synchronous = FULL), and only at checkpoints when fast', () => {
    expect(synchronousOf()).toBe(2)
    expect(synchronousOf('full')).toBe(2)
    expect(synchronousOf('fast')).toBe(1)
  })

  it.each([
    ['by default', [], {}, 'durability full'],
    ['with --durability fast', ['--durability', 'fast'], {}, 'durability fast'],
    ['with API_DURABILITY=fast', [], { API_DURABILITY: 'fast' }, 'durability fast'],
    [
      'with --durability full over API_DURABILITY=fast',
      ['--durability', 'full'],
      { API_DURABILITY: 'fast' },
      'durability full',
    ],
  ])('api-server serve says which it runs with %s', async (_, args, env, expected) => {
    expect(await listeningLine(args as string[], env as Record<string, string>)).toContain(expected)
  })

  it('refuses an unknown --durability with exit status 2 and a one-line reason', async () => {
    const { status, stderr } = await runAdmin(
      ['serve', '--port', '0', '--durability', 'sometimes'],
      newDb(),
      {
        timeoutMs: 10_000,
      },
    )
    expect(status).toBe(2)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain('--durability must be full or fast')
  })
})
