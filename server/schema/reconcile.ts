/**
 * Makes a database follow the declared schema, after the service's own migrations: the schema it
 * holds (the latest row of `schema_versions`) is compared with the declared one, and the changes
 * planned between them (server/schema/changes.ts) are applied in one transaction, under the lock
 * the backend gives it, with the new schema recorded as the next version. A change that may lose
 * or reject stored data is applied only when asked (`schema apply --allow-destructive`); at start
 * it stops everything before a statement runs.
 */
import { canonicalJson } from '../../shared/canonical-json.ts'
import { sha256Hex } from '../../shared/crypto.ts'
import { exampleDeclaration } from '../../shared/resources/index.ts'
import {
  declarationOf,
  type SchemaDeclaration,
  schemaFromDeclaration,
} from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Logger } from '../ops/logger.ts'
import type { SchemaChange } from './change.ts'
import { planChanges } from './changes.ts'
import type { DialectName } from './ddl-dialects.ts'

/** Statements on the database being reconciled; `?` for each parameter. */
export interface SchemaSql {
  all<T>(text: string, params?: unknown[]): Promise<T[]>
  run(text: string, params?: unknown[]): Promise<void>
}

/** A database as reconciling needs it, given by its backend (server/store/*\/schema-database.ts). */
export interface SchemaDatabase {
  readonly dialect: DialectName
  /** Reads outside any transaction, taking no lock. */
  read<T>(fn: (sql: SchemaSql) => Promise<T>): Promise<T>
  /**
   * `fn` in one write transaction under the lock schema changes take (so that of several instances
   * one applies and the others then find nothing to do); rolled back when it throws.
   */
  transaction<T>(fn: (sql: SchemaSql) => Promise<T>): Promise<T>
  /** Whether a table of this name exists. */
  hasTable(sql: SchemaSql, table: string): Promise<boolean>
}

/** Start refuses: the declared schema differs from the database's by changes that may lose data. */
export class DestructiveChangesError extends Error {
  override name = 'DestructiveChangesError'
  constructor(readonly changes: readonly SchemaChange[]) {
    super(
      [
        'the schema file has changes that may lose or reject stored data; nothing was changed.',
        ...changes.map((change) => `  ${change.description}`),
        'See them with their SQL: api-server schema plan; apply them: api-server schema apply --allow-destructive',
      ].join('\n'),
    )
  }
}

export interface ReconcileOptions {
  /** Applies destructive changes too (`schema apply --allow-destructive`). */
  allowDestructive?: boolean
  /** Hears one line per change applied. */
  logger?: Pick<Logger, 'log'>
}

interface Pending {
  changes: SchemaChange[]
  /** Whether the database records this very schema already. */
  recorded: boolean
  /** The version the declared schema is recorded as, with its hash and declaration. */
  version: number
  hash: string
  declaration: string
}

/**
 * Whether the database was made by a release before schema files, which served the built-in
 * example: without a recorded schema, it has the example's tables.
 */
async function heldTheExample(db: SchemaDatabase, sql: SchemaSql): Promise<boolean> {
  const example = schemaFromDeclaration(exampleDeclaration()).resources.filter((r) => !r.service)
  for (const resource of example) if (!(await db.hasTable(sql, resource.table))) return false
  return true
}

/**
 * What reconciling would do: the changes from the schema the database holds to `schema`. A
 * probe's stored records that the change would reject make it destructive, the count in its
 * description.
 */
async function pendingOn(db: SchemaDatabase, sql: SchemaSql, schema: Schema): Promise<Pending> {
  const [latest] = await sql.all<{ version: number; hash: string; declaration: string }>(
    'SELECT version, hash, declaration FROM schema_versions ORDER BY version DESC LIMIT 1',
  )
  const previous: SchemaDeclaration | null = latest
    ? JSON.parse(latest.declaration)
    : (await heldTheExample(db, sql))
      ? exampleDeclaration()
      : null
  const changes: SchemaChange[] = []
  for (const change of planChanges(previous, schema, db.dialect)) {
    const rejected = change.probe ? Number((await sql.all<{ n: unknown }>(change.probe))[0]?.n ?? 0) : 0
    changes.push(
      rejected > 0
        ? {
            ...change,
            destructive: true,
            description: `${change.description} (${rejected} stored record${rejected === 1 ? '' : 's'} would not fit)`,
          }
        : change,
    )
  }
  const declaration = canonicalJson(declarationOf(schema))
  const hash = sha256Hex(declaration)
  return {
    changes,
    recorded: latest?.hash === hash,
    version: Number(latest?.version ?? 0) + 1,
    hash,
    declaration,
  }
}

/** The latest schema recorded in `schema_versions`; null before any. */
export async function recordedSchema(sql: SchemaSql): Promise<{ version: number; hash: string } | null> {
  const [latest] = await sql.all<{ version: unknown; hash: string }>(
    'SELECT version, hash FROM schema_versions ORDER BY version DESC LIMIT 1',
  )
  return latest ? { version: Number(latest.version), hash: latest.hash } : null
}

const nothingToDo = (pending: Pending) => pending.changes.length === 0 && pending.recorded

/** The changes `reconcile` would apply to make the database follow `schema`; writes nothing. */
export async function pendingChanges(db: SchemaDatabase, schema: Schema): Promise<SchemaChange[]> {
  return (await db.read((sql) => pendingOn(db, sql, schema))).changes
}

/**
 * Applies the changes from the schema the database holds to `schema` in one transaction and
 * records `schema` as the next version; nothing when it holds `schema` already. Throws a
 * DestructiveChangesError, having changed nothing, when a change may lose or reject data and
 * `allowDestructive` is not given. Returns the changes applied.
 */
export async function reconcile(
  db: SchemaDatabase,
  schema: Schema,
  options: ReconcileOptions = {},
): Promise<SchemaChange[]> {
  // A look without the lock first: a start with nothing to do (the usual one) takes no write lock.
  if (nothingToDo(await db.read((sql) => pendingOn(db, sql, schema)))) return []
  const recorded = await db.transaction(async (sql) => {
    // Again under the lock: another instance may have applied it meanwhile.
    const pending = await pendingOn(db, sql, schema)
    if (nothingToDo(pending)) return undefined
    const refused = pending.changes.filter((change) => change.destructive)
    if (refused.length > 0 && !options.allowDestructive) throw new DestructiveChangesError(refused)
    for (const change of pending.changes) for (const statement of change.statements) await sql.run(statement)
    await sql.run(
      'INSERT INTO schema_versions (version, hash, applied_at, declaration) VALUES (?, ?, ?, ?)',
      [pending.version, pending.hash, new Date().toISOString(), pending.declaration],
    )
    return pending
  })
  if (!recorded) return []
  // Said once committed: a line per change, then the version the schema is recorded as.
  for (const change of recorded.changes)
    options.logger?.log('info', 'schema change applied', {
      change: change.description,
      destructive: change.destructive,
    })
  options.logger?.log('info', 'schema recorded', { version: recorded.version, hash: recorded.hash })
  return recorded.changes
}
