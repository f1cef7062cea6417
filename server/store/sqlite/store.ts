import { StampedCache } from '../change-stamp.ts'
import { ensureCliClient } from '../sql/clients.ts'
import { type EventLog, PURGES, txOver } from '../sql/groups.ts'
import type { ChangeSource, Store } from '../store.ts'
import type { Durability } from '../types.ts'
import { backupDatabase } from './backup.ts'
import { type Database, durabilityOf, migrateDatabase, openDatabase } from './db.ts'
import { SQLITE_EVENT_LOG } from './event-log.ts'
import { sqliteExecutors } from './transactions.ts'

/**
 * Changes seen by SQLite itself: `total_changes()` counts this connection's writes (nearly free),
 * `PRAGMA data_version` moves when another connection (another instance, an admin command) commits.
 *
 * `stamp(orgId)` is exact: this process bumps an organization's counter as it appends one of its
 * events (every change of a record appends one in its transaction, and reads wait for an open
 * transaction), and `data_version` moves every organization's stamp when another connection
 * committed. Seeing that also moves `own()`, so the caches of facts (`StampedCache`) drop theirs
 * at once instead of at their next poll.
 *
 * `data_version` costs about 2 µs (a read transaction), on every cached answer. So it is asked
 * only when the WAL index's header, which every commit of any connection rewrites (its change
 * counter, frame count and checksums, in the `-shm` file all connections map), differs from the
 * copy taken just before it was last asked: an unchanged header means no commit since, and the
 * version it gave still holds. A header caught mid-write differs too, and SQLite's own answer
 * decides. Without a `-shm` file (`:memory:`) every call asks.
 */
function changesOf(db: Database): { changes: ChangeSource; bump: (orgId: string) => void } {
  const own = db.query('SELECT total_changes() AS n')
  const others = db.query('PRAGMA data_version')
  let version = 0
  /** Mapped after the first `data_version` (which makes sure the `-shm` file exists); null if it cannot be. */
  let header: Uint32Array | null | undefined
  // All zeros until copied, so the first look after mapping asks again.
  const seen = new Uint32Array(WAL_INDEX_HEADER_WORDS)
  const dataVersion = () => {
    if (header) {
      if (sameWords(header, seen)) return version
      seen.set(header)
    }
    version = (others.get() as { data_version: number }).data_version
    if (header === undefined) header = walIndexHeader(db)
    return version
  }
  let tick = 0
  let seenVersion = -1
  let othersAt = 0
  let othersSeen = 0
  const orgs = new Map<string, number>()
  return {
    changes: {
      own: () => (own.get() as { n: number }).n + othersSeen,
      others: dataVersion,
      stamp: (orgId) => {
        const version = dataVersion()
        if (version !== seenVersion) {
          seenVersion = version
          othersAt = ++tick
          othersSeen++
        }
        const at = orgs.get(orgId) ?? 0
        return Math.max(at, othersAt)
      },
    },
    bump: (orgId) => {
      orgs.set(orgId, ++tick)
    },
  }
}

/** The WAL index header: its first copy, 48 bytes (https://www.sqlite.org/walformat.html). */
const WAL_INDEX_HEADER_WORDS = 12

/** The live header in this database's shared `-shm` mapping, or null where there is none. */
function walIndexHeader(db: Database): Uint32Array | null {
  if (db.filename === '' || db.filename === ':memory:') return null
  try {
    const shm = Bun.mmap(`${db.filename}-shm`, { shared: true })
    if (shm.byteLength < WAL_INDEX_HEADER_WORDS * 4) return null
    return new Uint32Array(shm.buffer, shm.byteOffset, WAL_INDEX_HEADER_WORDS)
  } catch {
    return null
  }
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < WAL_INDEX_HEADER_WORDS; i++) if (a[i] !== b[i]) return false
  return true
}

/** The store over one bun:sqlite connection. SQLite has one writer; a transaction is `BEGIN IMMEDIATE`. */
export function sqliteStore(db: Database): Store {
  const { changes, bump } = changesOf(db)
  const { root } = sqliteExecutors(db)
  const events: EventLog = {
    ...SQLITE_EVENT_LOG,
    append: async (x, event) => {
      await SQLITE_EVENT_LOG.append(x, event)
      bump(event.orgId)
    },
  }
  const backend = { events, lastChanges: new StampedCache<string | null>(changes) }
  // Admin work outside the statements waits for an open transaction like any statement.
  const run = async <T>(fn: () => T): Promise<T> => {
    await root.get('SELECT 1')
    return fn()
  }
  return {
    ...txOver(root, backend),
    backend: 'sqlite',
    get durability(): Durability {
      return durabilityOf(db)
    },
    changes,
    migrate: async () => {
      const version = await run(() => migrateDatabase(db))
      await ensureCliClient(root)
      return version
    },
    purgeExpired: (kind, now, limit) => PURGES[kind](root, now, limit),
    ping: async () => {
      await root.get('SELECT 1')
    },
    backup: (file) => run(() => backupDatabase(db, file)),
    // The write-ahead log folded into the database file, so that the file alone is the database.
    checkpoint: () =>
      run(() => {
        db.run('PRAGMA wal_checkpoint(TRUNCATE)')
      }),
    close: () => run(() => db.close()),
  }
}

/** Opens (creating if missing) the SQLite database at `path` and its store. */
export function openSqliteStore(path: string, durability: Durability = 'full'): Store {
  return sqliteStore(openDatabase(path, durability))
}
