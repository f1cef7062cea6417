/**
 * The planner of schema changes: what makes a database made for the previous declaration hold the
 * next schema, as a list of changes, each safe (applied at start) or destructive (only with
 * `schema apply --allow-destructive`), with its statements and, where the data decides, a probe.
 * docs/schema.md ("What a change does") lists every kind. Only declared collections change; the
 * service's own keep their migrations.
 *
 * Order: collections renamed first (so every reference and table name reads as in the next schema),
 * then new collections in dependency order, then each kept collection's fields
 * (server/schema/change-fields.ts), then removed collections, children before parents.
 */
import type { ResourceDeclaration, SchemaDeclaration } from '../../shared/schema/declaration.ts'
import { resourceDeclarationOf, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { SchemaChange } from './change.ts'
import { same } from './change-describe.ts'
import { planFields } from './change-fields.ts'
import { dropSearch, makeSearch, partsOf, quoted } from './change-parts.ts'
import { schemaFor } from './ddl.ts'
import { DIALECTS, type DialectName } from './ddl-dialects.ts'
import { deferForwardKeys } from './forward-keys.ts'

/** The changes that take a database holding `previous` (null: no declared collection yet) to `next`. */
export function planChanges(
  previous: SchemaDeclaration | null,
  next: Schema,
  dialect: DialectName,
): SchemaChange[] {
  const declared = next.resources.filter((r) => !r.service)
  const before = previous?.resources ?? {}
  // A next collection's previous name: its own, or its renamedFrom when the previous had that and the next has not.
  const previousName = new Map<string, string>()
  for (const r of declared) {
    const from = r.renamedFrom
    if (from && Object.hasOwn(before, from) && !next.byName(from)) previousName.set(r.name, from)
    else if (Object.hasOwn(before, r.name)) previousName.set(r.name, r.name)
  }
  const nextName = new Map([...previousName].map(([to, from]) => [from, to]))
  const original = schemaFromDeclaration({ resources: before })
  // The previous declaration with its collections under their next names: the database as it is
  // once the renames are done, which the changes of each collection start from.
  const renamed = schemaFromDeclaration({
    resources: Object.fromEntries(
      Object.entries(before).map(([name, d]) => [nextName.get(name) ?? name, underNextNames(d, nextName)]),
    ),
  })

  const changes: SchemaChange[] = []
  for (const r of declared) {
    const from = previousName.get(r.name)
    if (from === undefined || from === r.name) continue
    const old = original.byName(from)!
    const mid = renamed.byName(r.name)!
    const [a, b] = [partsOf(old, dialect, original), partsOf(mid, dialect, renamed)]
    const statements =
      dialect === 'sqlite'
        ? [
            ...dropSearch(a, dialect),
            `ALTER TABLE ${a.table} RENAME TO ${b.table}`,
            // SQLite cannot rename an index: each is made again under its new name.
            ...[...a.indexes.keys()].map((index) => `DROP INDEX ${index}`),
            ...[...b.indexes.values()].map((i) => i.statement),
            ...makeSearch(b, dialect),
          ]
        : [
            `ALTER TABLE ${a.table} RENAME TO ${b.table}`,
            `ALTER INDEX ${a.table}_pkey RENAME TO ${b.table}_pkey`,
            ...[...a.indexes.keys()].map(
              (index, i) => `ALTER INDEX ${index} RENAME TO ${[...b.indexes.keys()][i]}`,
            ),
            ...(a.searched.length > 0 ? [`ALTER INDEX ${a.table}_search RENAME TO ${b.table}_search`] : []),
            ...foreignKeysOf(b.create).map(
              (column) =>
                `ALTER TABLE ${b.table} RENAME CONSTRAINT ${a.table}_${column}_fkey TO ${b.table}_${column}_fkey`,
            ),
          ]
    changes.push({
      description: `rename collection ${from} to ${r.name} (records, ids and history kept)`,
      destructive: false,
      statements: [
        ...statements,
        // The event log names the collection: its history follows it.
        `UPDATE events SET resource = ${quoted(r.name)} WHERE resource = ${quoted(from)}`,
      ],
    })
  }

  // Tables there before the new collections: the service's own and the kept ones.
  const made = new Set(
    next.resources.filter((r) => r.service || previousName.has(r.name)).map((r) => r.table),
  )
  const laterKeys: string[] = []
  let lastAdded: SchemaChange | undefined
  for (const r of declared)
    if (!previousName.has(r.name)) {
      const created = schemaFor(r, dialect, next)
      const { now, later } =
        dialect === 'postgres' ? deferForwardKeys(created, made, r.table) : { now: created, later: [] }
      laterKeys.push(...later)
      lastAdded = {
        description: `add collection ${r.name} (${Object.keys(r.fields).join(', ')})`,
        destructive: false,
        statements: now,
      }
      changes.push(lastAdded)
    }
  // A reference between two new collections, once both tables exist.
  lastAdded?.statements.push(...laterKeys)

  for (const r of declared) {
    const from = previousName.get(r.name)
    if (from === undefined) continue
    const mid = renamed.byName(r.name)!
    const was = comparable(resourceDeclarationOf(mid))
    const is = comparable(resourceDeclarationOf(r))
    if (same(was, is)) continue
    const old = original.byName(from)!
    if (old.prefix !== r.prefix)
      changes.push({
        description: `change the id prefix of ${r.name} from ${old.prefix} to ${r.prefix}: stored ids keep ${old.prefix} and would no longer match it, nor would references to them (declare a new collection instead)`,
        destructive: true,
        statements: [],
      })
    const other = (['singular', 'description', 'parent', 'actions'] as const).filter(
      (key) => !same(was[key], is[key]),
    )
    if (other.length > 0)
      changes.push({
        description: `change ${other.join(', ')} of ${r.name}`,
        destructive: false,
        statements: [],
      })
    changes.push(
      ...planFields({ resource: mid, schema: renamed }, { resource: r, schema: next }, dialect, old.table),
    )
  }

  for (const old of [...original.resources].reverse()) {
    if (old.service || nextName.has(old.name)) continue
    changes.push({
      description: `remove collection ${old.name}: its records are lost`,
      destructive: true,
      statements: [...(dialect === 'sqlite' ? dropSearch(old, dialect) : []), `DROP TABLE ${old.table}`],
      probe: `SELECT count(*) AS n FROM ${old.table}`,
    })
  }
  return withPrelude(changes, original, dialect)
}

/** A previous collection's declaration as its next name and its references' next names read it. */
function underNextNames(d: ResourceDeclaration, nextName: Map<string, string>): ResourceDeclaration {
  const name = (collection: string) => nextName.get(collection) ?? collection
  const { renamedFrom: _, ...rest } = d
  return {
    ...rest,
    ...(d.parent ? { parent: { ...d.parent, collection: name(d.parent.collection) } } : {}),
    fields: Object.fromEntries(
      Object.entries(d.fields).map(([field, f]) => [field, f.to ? { ...f, to: name(f.to) } : f]),
    ),
  }
}

/** A declaration as compared: key-sorted at every level, without renamedFrom anywhere. */
function comparable(d: ResourceDeclaration): Record<string, unknown> {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted)
    if (value === null || typeof value !== 'object') return value
    return Object.fromEntries(
      Object.keys(value)
        .filter((key) => key !== 'renamedFrom')
        .sort()
        .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
    )
  }
  return sorted(d) as Record<string, unknown>
}

/** The columns a CREATE TABLE gives a foreign key (PostgreSQL names each `<table>_<column>_fkey`). */
const foreignKeysOf = (create: string) =>
  create
    .split('\n')
    .filter((line) => line.includes(' REFERENCES '))
    .map((line) => line.trim().split(' ')[0]!)

/**
 * PostgreSQL's extensions and search function, before the first change that needs them, when the
 * previous schema needed none (its plan made them).
 */
function withPrelude(changes: SchemaChange[], original: Schema, dialect: DialectName): SchemaChange[] {
  const needs = (sql: string) => /citext|api_unaccent/.test(sql)
  const made = original.resources.filter((r) => !r.service).flatMap((r) => schemaFor(r, dialect, original))
  if (dialect !== 'postgres' || needs(made.join('\n'))) return changes
  const first = changes.find((c) => c.statements.some(needs))
  if (first) first.statements.unshift(...DIALECTS.postgres.prelude)
  return changes
}
