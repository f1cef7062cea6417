import type { Schema } from '../../shared/schema/schema.ts'
import type { Logger } from '../ops/logger.ts'
import type { OutageReport } from './availability.ts'
import { openPostgresStore } from './postgres/store.ts'
import { openSqliteStore } from './sqlite/store.ts'
import type { Store } from './store.ts'
import type { Durability } from './types.ts'

/** True for a `--db` value that names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//.test(location)

/**
 * The `--db` value as it may be shown (the listening line, the start-up hint, logs): a PostgreSQL
 * URL without its password.
 */
export function describeLocation(location: string): string {
  if (!isPostgresUrl(location) || !URL.canParse(location)) return location
  const url = new URL(location)
  if (url.password) url.password = '***'
  return url.toString()
}

interface OpenOptions {
  /** `--durability` (SQLite; on PostgreSQL the server's own setting decides). */
  durability?: Durability
  /** `--db-listen`: a direct PostgreSQL URL for the change notifications. */
  listen?: string
  /** Told once when the database stops answering and once when it answers again. */
  outage?: OutageReport
  /** Hears each schema change `migrate` applies (server/schema/reconcile.ts). */
  logger?: Logger
}

/**
 * Opens the store a `--db` value names: a `postgres://` URL (PostgreSQL), a SQLite file path
 * (created if missing, in a directory that must exist) or `:memory:`. A SQLite path it cannot use
 * fails with a DatabaseFileError naming it. `schema` is the resources it holds.
 */
export function openStore(location: string, schema: Schema, options: OpenOptions = {}): Store {
  const { durability = 'full', listen, outage, logger } = options
  return isPostgresUrl(location)
    ? openPostgresStore(location, schema, listen, outage, logger)
    : openSqliteStore(location, schema, durability, outage, logger)
}
