import { SQL } from 'bun'
import type { Schema } from '../../../shared/schema/schema.ts'
import type { Logger } from '../../ops/logger.ts'
import { Availability, type OutageReport } from '../availability.ts'
import { ensureCliClient } from '../sql/clients.ts'
import { PURGES, txOver } from '../sql/groups.ts'
import { StatementTiming, timedExecutor } from '../statement-timing.ts'
import type { ChangeSource, Store } from '../store.ts'
import { DatabaseFileError, type Durability } from '../types.ts'
import { POSTGRES_EVENT_LOG } from './event-log.ts'
import { postgresExecutor } from './executor.ts'
import { migratePostgres } from './migrate.ts'
import { isConnectionFailure } from './unreachable.ts'

/** The channel every instance announces its writes on, so that the others drop what they cached. */
const CHANGES_CHANNEL = 'api_changes'

/**
 * The newest position in an organization's event log. Written as a range on `org_id` ordered by
 * (org_id, seq) so that only the index events (org_id, seq) can answer it, from its end: with
 * `org_id = ?` and statistics, PostgreSQL prefers walking the whole log backwards on the unique
 * seq index, filtering by organization (6 ms instead of 0.1 ms for an organization whose events
 * are old; test/store/postgres/stamp-plan.test.ts).
 */
export const STAMP_SQL =
  'SELECT seq FROM events WHERE org_id >= ? AND org_id <= ? ORDER BY org_id DESC, seq DESC LIMIT 1'

/** Connections per instance; a write holds one from BEGIN to COMMIT. */
const POOL_SIZE = 10

/**
 * The store on PostgreSQL through Bun.sql: the same statements as SQLite's (`server/store/sql/`) in
 * PostgreSQL's dialect, its own event log (positions in commit order across replicas), and change
 * notifications over LISTEN/NOTIFY for the caches of every instance.
 *
 * `listenUrl` (`serve --db-listen`) is where the LISTEN connection goes when `url` reaches the
 * database through a pooler in transaction mode (PgBouncer): there a LISTEN registers on whichever
 * server connection ran it, which goes back to the pool, and no notification comes back. A LISTEN
 * needs a session of its own, so it gets a direct connection; everything else uses the pool.
 *
 * While PostgreSQL cannot be reached, every call fails with the 503 of `databaseUnavailable`, and
 * `outage` hears once that the database went and once that it is back (server/store/availability.ts);
 * `logger` hears each schema change `migrate` applies.
 */
export function openPostgresStore(
  url: string,
  schema: Schema,
  listenUrl?: string,
  outage?: OutageReport,
  logger?: Logger,
): Store {
  const sql = new SQL(url, { max: POOL_SIZE })
  const listener = listenUrl === undefined ? sql : new SQL(listenUrl, { max: 1 })
  const instance = crypto.randomUUID()
  let own = 0
  let others = 0
  const writes = {
    committed: () => {
      own++
    },
    announce: { channel: CHANGES_CHANNEL, payload: instance },
  }
  const timing = new StatementTiming('postgres', POOL_SIZE)
  const root = timedExecutor(
    postgresExecutor(sql, writes, new Availability(isConnectionFailure, outage)),
    timing,
  )
  const changes: ChangeSource = {
    own: () => own,
    others: () => others,
    // Notifications arrive after the commit, whenever they do: a replica that has not heard of
    // another's write yet must still not answer from its cache. The newest position in the
    // organization's event log is the stamp (every change appends an event in its transaction;
    // positions commit in order, event-log.ts): one read of the index events (org_id, seq).
    stamp: async (orgId) => {
      const row = await root.get<{ seq: string | number | null }>(STAMP_SQL, [orgId, orgId])
      return Number(row?.seq ?? 0)
    },
  }
  // No cache of last changes: it would be stale until the notification arrives (groups.ts).
  const backend = { events: POSTGRES_EVENT_LOG, schema }
  const tx = txOver(root, backend)
  let listening: Promise<{ unlisten(): Promise<void> }> | undefined
  let listened = false
  const listen = () => {
    listening ??= listener.listen(
      CHANGES_CHANNEL,
      (payload) => {
        if (payload !== instance) others++
      },
      // Bun.sql listens again after its connection was lost (a restart of PostgreSQL): what other
      // instances wrote meanwhile was never heard, so the caches of facts are dropped.
      () => {
        if (listened) others++
        listened = true
      },
    )
    return listening
  }
  // PostgreSQL's own setting decides, not `--durability`: synchronous_commit = on (the default,
  // and local, remote_write, remote_apply) flushes a commit before it is acknowledged; off does not.
  // Read when the store migrates, which serve and every admin command do first.
  let durability: Durability = 'full'
  return {
    ...tx,
    backend: 'postgres',
    timing,
    get durability() {
      return durability
    },
    changes,
    migrate: async () => {
      const version = await migratePostgres(sql, schema, { logger })
      await ensureCliClient(root, schema.scopes)
      await listen()
      const row = await root.get<{ setting: string }>(
        "SELECT current_setting('synchronous_commit') AS setting",
      )
      durability = row?.setting === 'off' ? 'fast' : 'full'
      return version
    },
    purgeExpired: (kind, now, limit) => PURGES[kind](root, now, limit),
    ping: async () => {
      await root.get('SELECT 1')
    },
    backup: async () => {
      throw new DatabaseFileError(
        'backup copies a SQLite file; back up PostgreSQL with pg_dump (docs/deployment.md)',
      )
    },
    checkpoint: async () => {},
    close: async () => {
      if (listening) await (await listening).unlisten()
      await sql.close()
      if (listener !== sql) await listener.close()
    },
  }
}
