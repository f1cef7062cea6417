import type { Schema } from '../../../shared/schema/schema.ts'
import type { Logger } from '../../ops/logger.ts'
import { Availability, type OutageReport } from '../availability.ts'
import { StampedCache } from '../change-stamp.ts'
import { ensureCliClient } from '../sql/clients.ts'
import { type EventLog, PURGES, txOver } from '../sql/groups.ts'
import { StatementTiming, timedExecutor } from '../statement-timing.ts'
import type { ChangeSource, Store } from '../store.ts'
import type { Durability } from '../types.ts'
import { backupDatabase } from './backup.ts'
import { type Database, durabilityOf, migrateDatabase, openDatabase } from './db.ts'
import { SQLITE_EVENT_LOG } from './event-log.ts'
import { isBusy, sqliteExecutors } from './transactions.ts'

/**
 * Changes seen by SQLite itself: `total_changes()` counts this connection's writes (nearly free),
 * `PRAGMA data_version` moves when another connection (another instance, an admin command) commits.
 *
 * `stamp(orgId)` is exact: this process bumps an organization's counter as it appends one of its
 * events (every change of a record appends one in its transaction, and reads wait for an open
 * transaction), and `data_version`, read on every call (about 2 µs), moves every organization's
 * stamp when another connection committed. Seeing that also moves `own()`, so the caches of facts
 * (`StampedCache`) drop theirs at once instead of at their next poll.
 */
function changesOf(db: Database): { changes: ChangeSource; bump: (orgId: string) => void } {
  const own = db.query('SELECT total_changes() AS n')
  const others = db.query('PRAGMA data_version')
  const dataVersion = () => (others.get() as { data_version: number }).data_version
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

/**
 * The store over one bun:sqlite connection. SQLite has one writer; a transaction is `BEGIN
 * IMMEDIATE`. `outage` hears when writes stop getting the write lock and when they get it again;
 * `logger` each schema change `migrate` applies.
 */
export function sqliteStore(db: Database, schema: Schema, outage?: OutageReport, logger?: Logger): Store {
  const { changes, bump } = changesOf(db)
  // One connection: a transaction holds it, and every other statement waits for it to end.
  const timing = new StatementTiming('sqlite', 1)
  const root = timedExecutor(sqliteExecutors(db, new Availability(isBusy, outage)).root, timing)
  const events: EventLog = {
    ...SQLITE_EVENT_LOG,
    append: async (x, event) => {
      await SQLITE_EVENT_LOG.append(x, event)
      bump(event.orgId)
    },
    appendMany: async (x, list) => {
      await SQLITE_EVENT_LOG.appendMany(x, list)
      for (const orgId of new Set(list.map((event) => event.orgId))) bump(orgId)
    },
  }
  const backend = { events, schema, lastChanges: new StampedCache<string | null>(changes) }
  // Admin work outside the statements waits for an open transaction like any statement.
  const run = async <T>(fn: () => T): Promise<T> => {
    await root.get('SELECT 1')
    return fn()
  }
  return {
    ...txOver(root, backend),
    backend: 'sqlite',
    timing,
    get durability(): Durability {
      return durabilityOf(db)
    },
    changes,
    migrate: async () => {
      const version = await run(() => migrateDatabase(db, schema, { logger }))
      await ensureCliClient(root, schema.scopes)
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
export function openSqliteStore(
  path: string,
  schema: Schema,
  durability: Durability = 'full',
  outage?: OutageReport,
  logger?: Logger,
): Store {
  return sqliteStore(openDatabase(path, durability), schema, outage, logger)
}
