/**
 * The changes of one field kept from the previous schema to the next (perhaps renamed): its type,
 * format, nullability, limits, enum values, filter, sort and unique, and the options that change
 * nothing stored. Part of server/schema/change-fields.ts, which adds the field's indexes and
 * leaves the statements to a rebuild where SQLite's ALTER TABLE cannot make them.
 */
import type { Field } from '../../shared/resources/index.ts'
import type { SchemaChange } from './change.ts'
import { API_ONLY_KEYS, limitsOf, same, shown } from './change-describe.ts'
import { columnType, converted, dropSearch, type Parts, referencedTable } from './change-parts.ts'
import { limitProbe } from './change-probes.ts'
import type { DialectName } from './ddl-dialects.ts'

/** A field of the previous schema and the field it became (either missing when added or removed). */
export interface Pair {
  before?: { name: string; field: Field; column: string }
  after?: { name: string; field: Field; column: string }
}

/** The storage of the column changes (its type, collation or foreign key). */
export const storageChanges = ({ before: b, after: a }: Pair, before: Parts, after: Parts) =>
  b !== undefined &&
  a !== undefined &&
  (columnType(before, b.column) !== columnType(after, a.column) ||
    referencedTable(before, b.column) !== referencedTable(after, a.column))

/** The changes of a field kept (perhaps renamed): type, nullability, limits, indexes, the rest. */
export function changedField(
  pair: Pair,
  before: Parts,
  after: Parts,
  dialect: DialectName,
  where: string,
  probeTable: string,
): SchemaChange[] {
  const b = pair.before!
  const a = pair.after!
  const [p, n] = [b.field.declaration, a.field.declaration]
  const t = after.table
  const out: SchemaChange[] = []
  const storage = storageChanges(pair, before, after)
  const storageStatements = (): string[] => {
    if (!storage || dialect !== 'postgres') return []
    const fkBefore = referencedTable(before, b.column)
    const fkAfter = referencedTable(after, a.column)
    return [
      ...(before.searched.includes(b.column) ? dropSearch(after, dialect) : []),
      ...(fkBefore && fkBefore !== fkAfter ? [`ALTER TABLE ${t} DROP CONSTRAINT ${t}_${a.column}_fkey`] : []),
      `ALTER TABLE ${t} ALTER COLUMN ${a.column} TYPE ${columnType(after, a.column)} USING ${converted(a.column, b.field, a.field, dialect)}`,
      ...(fkAfter && fkBefore !== fkAfter
        ? [
            `ALTER TABLE ${t} ADD CONSTRAINT ${t}_${a.column}_fkey FOREIGN KEY (${a.column}) REFERENCES ${fkAfter}(id)`,
          ]
        : []),
    ]
  }
  const typeChanged = p.type !== n.type || p.to !== n.to
  if (typeChanged) {
    const from = p.type === 'reference' ? `reference to ${p.to}` : p.type
    const to = n.type === 'reference' ? `reference to ${n.to}` : n.type
    out.push({
      description: `change type of ${where} from ${from} to ${to}: values that do not convert make the apply fail`,
      destructive: true,
      statements: storageStatements(),
      ...(n.type === 'enum'
        ? { probe: limitProbe(probeTable, b.column, n, { values: n.values ?? [] }, dialect) }
        : {}),
    })
  }
  if (!same(p.format, n.format)) {
    const narrower = n.format !== undefined
    out.push({
      description: narrower
        ? `set format of ${where} to ${n.format}: stored values are not checked against it`
        : `drop format ${p.format} of ${where}`,
      destructive: narrower,
      statements: typeChanged ? [] : storageStatements(),
    })
  }
  if (b.field.nullable !== a.field.nullable) {
    const statement = `ALTER TABLE ${t} ALTER COLUMN ${a.column} ${a.field.nullable ? 'DROP' : 'SET'} NOT NULL`
    out.push(
      a.field.nullable
        ? { description: `make ${where} nullable`, destructive: false, statements: [statement] }
        : {
            description: `make ${where} not nullable: records holding null make the apply fail`,
            destructive: true,
            statements: [statement],
            probe: `SELECT count(*) AS n FROM ${probeTable} WHERE ${b.column} IS NULL`,
          },
    )
    if (dialect === 'sqlite') out.at(-1)!.statements = []
  }
  if (!typeChanged) out.push(...limitChanges(b, a, where, dialect, probeTable))
  const other = API_ONLY_KEYS.filter((key) => !same(p[key], n[key]))
  if (other.length > 0)
    out.push({ description: `change ${other.join(', ')} of ${where}`, destructive: false, statements: [] })
  return out
}

type Kept = NonNullable<Pair['before']>

/** Wider limits and new enum values are safe; narrower ones destructive, with a probe counting what they leave out. */
function limitChanges(
  b: Kept,
  a: Kept,
  where: string,
  dialect: DialectName,
  probeTable: string,
): SchemaChange[] {
  const [p, n] = [b.field.declaration, a.field.declaration]
  const out: SchemaChange[] = []
  const [was, is] = [limitsOf(p), limitsOf(n)]
  const narrower: Record<string, number> = {}
  const moved: string[] = []
  for (const key of Object.keys(is)) {
    if (was[key] === is[key]) continue
    moved.push(`${key} ${shown(was[key])} to ${shown(is[key])}`)
    if (key === 'min' ? is[key]! > was[key]! : is[key]! < was[key]!) narrower[key] = is[key]!
  }
  if (moved.length > 0) {
    const narrowed = Object.keys(narrower).length > 0
    out.push({
      description: `${narrowed ? 'narrow' : 'widen'} ${where} (${moved.join(', ')})${narrowed ? ': stored values outside it no longer validate' : ''}`,
      destructive: narrowed,
      statements: [],
      ...(narrowed ? { probe: limitProbe(probeTable, b.column, p, narrower, dialect) } : {}),
    })
  }
  if (p.type === 'enum' && !same(p.values, n.values)) {
    const gone = (p.values ?? []).filter((v) => !n.values?.includes(v))
    const come = (n.values ?? []).filter((v) => !p.values?.includes(v))
    if (come.length > 0 || gone.length === 0)
      out.push({
        description:
          come.length > 0 ? `add values ${come.join(', ')} to ${where}` : `reorder the values of ${where}`,
        destructive: false,
        statements: [],
      })
    if (gone.length > 0)
      out.push({
        description: `remove values ${gone.join(', ')} from ${where}: records holding them no longer validate`,
        destructive: true,
        statements: [],
        probe: limitProbe(probeTable, b.column, n, { values: n.values ?? [] }, dialect),
      })
  }
  return out
}

/** A filter, sort or unique added or dropped: its index made or dropped; a new unique with a probe for duplicates. */
export function indexChanges(b: Kept, a: Kept, where: string, probeTable: string): SchemaChange[] {
  const [p, n] = [b.field.declaration, a.field.declaration]
  const [collection, field] = where.split('.')
  const out: SchemaChange[] = []
  const change = (description: string, probe?: string) =>
    out.push({ description, destructive: false, statements: [], ...(probe ? { probe } : {}) })
  if (p.filter !== n.filter)
    change(
      n.filter
        ? `filter ${collection} by ${field} (${n.filter})`
        : `stop filtering ${collection} by ${field}`,
    )
  if (Boolean(p.sort) !== Boolean(n.sort))
    change(n.sort ? `sort ${collection} by ${field}` : `stop sorting ${collection} by ${field}`)
  if (Boolean(p.unique) !== Boolean(n.unique))
    if (n.unique)
      change(
        `make ${where} unique: duplicates make the apply fail`,
        `SELECT count(*) AS n FROM (SELECT 1 FROM ${probeTable} WHERE ${b.column} IS NOT NULL GROUP BY org_id, ${b.column} HAVING count(*) > 1) AS duplicates`,
      )
    else change(`make ${where} no longer unique`)
  return out
}
