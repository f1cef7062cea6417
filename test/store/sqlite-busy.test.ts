import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DATABASE_UNAVAILABLE,
  describeFailure,
  isDatabaseUnavailable,
} from '../../server/store/availability.ts'
import { openStore } from '../../server/store/open.ts'
import { openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { isBusy } from '../../server/store/sqlite/transactions.ts'
import type { Store } from '../../server/store/store.ts'
import type { ApiError } from '../../shared/errors.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

/**
 * Another process (an admin command, a `sqlite3` shell) holds SQLite's write lock for longer than
 * the busy timeout: the server's writes fail as the contract's 503 (nothing was written, a retry may
 * succeed), and the outage is reported once when it starts and once when a write gets the lock again.
 */
let path: string
let store: Store
let other: Database
const reports: string[] = []

beforeEach(async () => {
  path = join(mkdtempSync(join(tmpdir(), 'api-busy-')), 'api.db')
  const migrated = openStore(path, exampleSchema())
  await migrated.migrate()
  await migrated.close()
  const db = openDatabase(path)
  // The server waits 5 s for the lock; the test need not.
  db.run('PRAGMA busy_timeout = 50')
  reports.length = 0
  store = sqliteStore(db, exampleSchema(), {
    lost: (cause) => reports.push(`lost ${describeFailure(cause).code}`),
    back: () => reports.push('back'),
  })
  other = new Database(path)
})
afterEach(async () => {
  other.close()
  await store.close()
})

describe('a write while another connection holds the write lock past the busy timeout', () => {
  it('fails with 503 UNAVAILABLE and Retry-After, writes nothing, and reports the outage once each way', async () => {
    other.run('BEGIN IMMEDIATE')
    const failures = [
      await store.orgs.create('Outside a transaction').catch((error: unknown) => error),
      await store.transaction((tx) => tx.orgs.create('In a transaction')).catch((error: unknown) => error),
      await store.orgs.create('Again').catch((error: unknown) => error),
    ]
    for (const failure of failures) {
      expect(isDatabaseUnavailable(failure)).toBe(true)
      const error = failure as ApiError
      expect(error.status).toBe(503)
      expect(error.headers).toEqual({ 'Retry-After': '1' })
      expect(error.toBody()).toEqual({
        error: { code: 'UNAVAILABLE', message: DATABASE_UNAVAILABLE, details: [] },
      })
    }
    // Reads go on: in WAL mode they take no lock.
    expect(await store.orgs.any()).toBe(false)
    expect(reports).toEqual(['lost SQLITE_BUSY'])

    other.run('COMMIT')
    await store.orgs.create('After')
    await store.orgs.create('And after')
    expect(reports).toEqual(['lost SQLITE_BUSY', 'back'])
  })

  it.each([
    ['SQLITE_BUSY', true],
    ['SQLITE_BUSY_SNAPSHOT', true],
    ['SQLITE_LOCKED', false],
    ['SQLITE_CONSTRAINT_UNIQUE', false],
    ['SQLITE_READONLY', false],
    [undefined, false],
  ])('takes %p for a database that cannot be reached: %p', (code, busy) => {
    expect(isBusy(Object.assign(new Error('x'), { code }))).toBe(busy)
  })
})
