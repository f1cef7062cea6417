/**
 * The changes of one collection kept from the previous schema to the next: its fields added,
 * removed, renamed and changed, its indexes and its search. Each change carries its own statements
 * where an ALTER TABLE does it; where SQLite's cannot (a changed type or nullability, a new
 * required field, a removed reference), the collection's table is rebuilt once
 * (server/schema/rebuild.ts) and that rebuild is a change of its own after the ones it carries out.
 */
import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { columnOf } from '../store/columns.ts'
import type { SchemaChange } from './change.ts'
import { same, shapeOf } from './change-describe.ts'
import { changedField, indexChanges, type Pair, storageChanges } from './change-kept-field.ts'
import {
  columnDefinition,
  dropSearch,
  literalOf,
  makeSearch,
  type Parts,
  partsOf,
  referencedTable,
} from './change-parts.ts'
import type { DialectName } from './ddl-dialects.ts'
import { rebuildStatements } from './rebuild.ts'

interface Side {
  resource: Resource
  schema: Schema
}

/**
 * The changes from `previous` (the previous declaration under its next name, so its table and
 * references read as after a collection rename) to `next`; `probeTable` is the table as the
 * database holds it before the plan runs, which every probe reads.
 */
export function planFields(
  previous: Side,
  next: Side,
  dialect: DialectName,
  probeTable: string,
): SchemaChange[] {
  const name = next.resource.name
  const before = partsOf(previous.resource, dialect, previous.schema)
  const after = partsOf(next.resource, dialect, next.schema)
  const t = after.table
  const pairs = pairsOf(previous.resource, next.resource)
  const rebuild = dialect === 'sqlite' && pairs.some((p) => needsRebuild(p, before, after))
  const changes: SchemaChange[] = []
  /** The statements, or none when the rebuild carries them out. */
  const sql = (statements: string[]) => (rebuild ? [] : statements)
  const add = (change: SchemaChange) => changes.push(change)

  for (const pair of pairs) {
    const { before: b, after: a } = pair
    const indexes = indexStatements(pair, before, after, dialect)
    const searched = b !== undefined && before.searched.includes(b.column)
    if (b && !a) {
      add({
        description: `remove field ${name}.${b.name}: its values are lost`,
        destructive: true,
        statements: sql([
          ...(searched ? dropSearch(before, dialect) : []),
          ...indexes,
          `ALTER TABLE ${t} DROP COLUMN ${b.column}`,
        ]),
      })
      continue
    }
    if (!b && a) {
      add(addedField(pair, name, probeTable, sql([...addColumn(a, after, dialect), ...indexes])))
      continue
    }
    if (!b || !a) continue
    const own: SchemaChange[] = []
    if (b.name !== a.name)
      own.push({
        description: `rename field ${name}.${b.name} to ${name}.${a.name} (values kept)`,
        destructive: false,
        statements: [
          ...(searched && dialect === 'sqlite' ? dropSearch(before, dialect) : []),
          `ALTER TABLE ${t} RENAME COLUMN ${b.column} TO ${a.column}`,
          ...(dialect === 'postgres' && referencedTable(before, b.column)
            ? [`ALTER TABLE ${t} RENAME CONSTRAINT ${t}_${b.column}_fkey TO ${t}_${a.column}_fkey`]
            : []),
        ],
      })
    const where = `${name}.${a.name}`
    const indexed = indexChanges(b, a, where, probeTable)
    own.push(...changedField(pair, before, after, dialect, where, probeTable), ...indexed)
    for (const change of own) change.statements = sql(change.statements)
    // The field's indexes go with its rename, else with its first change of filter, sort or
    // unique, else with its first change.
    const holder = b.name !== a.name ? own[0] : (indexed[0] ?? own[0])
    if (holder) holder.statements.push(...sql(indexes))
    else if (indexes.length > 0)
      own.push({ description: `index ${where} again`, destructive: false, statements: sql(indexes) })
    changes.push(...own)
  }

  const search = searchChange(previous.resource, next.resource, pairs, before, after, dialect, name)
  if (search) add({ ...search, statements: sql(search.statements) })
  if (rebuild)
    add({
      description: `rebuild table ${t} for the changes above (rows, ids, events and search kept)`,
      destructive: false,
      statements: rebuildStatements(pairs, before, after, next.resource),
    })
  return changes
}

/** The fields of both sides paired by name, or by the next field's `renamedFrom`: removed, renamed, added, kept. */
function pairsOf(previous: Resource, next: Resource): Pair[] {
  const side = (name: string, field: Field) => ({ name, field, column: columnOf(name) })
  const renamedFrom = new Map<string, string>()
  for (const [name, field] of Object.entries(next.fields)) {
    const from = field.declaration.renamedFrom
    if (from && Object.hasOwn(previous.fields, from) && !Object.hasOwn(next.fields, from))
      renamedFrom.set(from, name)
  }
  const removed: Pair[] = []
  const kept: Pair[] = []
  for (const [name, field] of Object.entries(previous.fields)) {
    const to = renamedFrom.get(name) ?? (Object.hasOwn(next.fields, name) ? name : undefined)
    if (to === undefined) removed.push({ before: side(name, field) })
    else kept.push({ before: side(name, field), after: side(to, next.fields[to]!) })
  }
  const taken = new Set(kept.map((p) => p.after!.name))
  const added = Object.entries(next.fields)
    .filter(([name]) => !taken.has(name))
    .map(([name, field]) => ({ after: side(name, field) }))
  const renamed = kept.filter((p) => p.before!.name !== p.after!.name)
  const same = kept.filter((p) => p.before!.name === p.after!.name)
  // Removed first, so a renamed field may take a removed one's name; renamed before added likewise.
  return [...removed, ...renamed, ...added, ...same]
}

/** What SQLite's ALTER TABLE cannot do (https://www.sqlite.org/lang_altertable.html). */
function needsRebuild(pair: Pair, before: Parts, after: Parts): boolean {
  const { before: b, after: a } = pair
  if (b && !a) return referencedTable(before, b.column) !== undefined
  if (!b && a) return !a.field.nullable && a.field.default === undefined
  return storageChanges(pair, before, after) || b!.field.nullable !== a!.field.nullable
}

/** The field's indexes to drop and make: all of them for a rename, a removal or an addition, else those that differ. */
function indexStatements(pair: Pair, before: Parts, after: Parts, dialect: DialectName): string[] {
  const { before: b, after: a } = pair
  const whole = b?.name !== a?.name
  const of = (parts: Parts, column: string | undefined) =>
    [...parts.indexes].filter(([, i]) => column !== undefined && i.columns.includes(column))
  const drops = of(before, b?.column).filter(
    ([name, i]) => whole || after.indexes.get(name)?.statement !== i.statement,
  )
  const makes = of(after, a?.column).filter(
    ([name, i]) => whole || before.indexes.get(name)?.statement !== i.statement,
  )
  // On PostgreSQL an index is dropped with its column.
  const dropped = dialect === 'postgres' && !a ? [] : drops.map(([name]) => `DROP INDEX ${name}`)
  return [...dropped, ...makes.map(([, i]) => i.statement)]
}

function addColumn(a: NonNullable<Pair['after']>, after: Parts, dialect: DialectName): string[] {
  const t = after.table
  const definition = columnDefinition(after, a.column)
  if (a.field.default === undefined || a.field.default === null)
    return [`ALTER TABLE ${t} ADD COLUMN ${definition}`]
  // The rows there get the default, and the column keeps it (a fresh table has none: the service
  // names every column it writes): a replica still serving the previous schema, which knows nothing
  // of the column, goes on creating records while and after the change is applied.
  const at = definition.indexOf(' REFERENCES ')
  const withDefault =
    at < 0
      ? `${definition} DEFAULT ${literalOf(a.field, dialect)}`
      : `${definition.slice(0, at)} DEFAULT ${literalOf(a.field, dialect)}${definition.slice(at)}`
  return [`ALTER TABLE ${t} ADD COLUMN ${withDefault}`]
}

function addedField(pair: Pair, name: string, probeTable: string, statements: string[]): SchemaChange {
  const a = pair.after!
  const description = `add field ${name}.${a.name} (${shapeOf(a.field)})`
  if (a.field.nullable || a.field.default !== undefined)
    return { description, destructive: false, statements }
  // Safe on an empty table; with records there is no value to give them, and the probe says so.
  return {
    description: `${description}: refused while ${name} has records`,
    destructive: false,
    statements,
    probe: `SELECT count(*) AS n FROM ${probeTable}`,
  }
}

/** The search, when its fields change (or, on SQLite, their columns' names): dropped and made again. */
function searchChange(
  previous: Resource,
  next: Resource,
  pairs: Pair[],
  before: Parts,
  after: Parts,
  dialect: DialectName,
  name: string,
): SchemaChange | undefined {
  // In each side's field order, the previous fields under their next names.
  const nextName = new Map(pairs.map((p) => [p.before?.name, p.after?.name ?? p.before?.name]))
  const was = Object.entries(previous.fields)
    .filter(([, f]) => f.search)
    .map(([field]) => nextName.get(field)!)
  const is = Object.entries(next.fields)
    .filter(([, f]) => f.search)
    .map(([field]) => field)
  const renamed = !same(before.searched, after.searched)
  const retyped = pairs.some((p) => p.before?.field.search && storageChanges(p, before, after))
  const remade = !same(was, is) || (dialect === 'sqlite' ? renamed : retyped)
  if (!remade) return undefined
  const description = same(was, is)
    ? `make the search of ${name} again (${is.join(', ')})`
    : is.length === 0
      ? `stop searching ${name} (${was.join(', ')})`
      : `search ${name} by ${is.join(', ')}${was.length > 0 ? ` (was: ${was.join(', ')})` : ''}`
  return {
    description,
    destructive: false,
    statements: [...dropSearch(after, dialect), ...makeSearch(after, dialect)],
  }
}
