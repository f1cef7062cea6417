import type { ErrorDetail } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type ApiVersion, schemaFor } from '../versions/versions.ts'

/** How a cell's text becomes a JSON value: `text` keeps a quoted empty cell, `word` (enum, id, time) does not. */
type CellKind = 'text' | 'word' | 'integer' | 'boolean' | 'json'

/** A CSV column: the member of a request body it fills (`amount.value` is `["amount", "value"]`). */
interface Column {
  name: string
  path: readonly [string] | readonly [string, string]
  kind: CellKind
  /** An empty cell is null (else the member is absent and the field's default applies). */
  nullable: boolean
}

const KINDS: Record<string, CellKind> = {
  integer: 'integer',
  boolean: 'boolean',
  json: 'json',
  text: 'text',
  enum: 'word',
  reference: 'word',
  timestamp: 'word',
}

const plans = new WeakMap<Resource, Map<string, Map<string, Column>>>()

/**
 * The columns a CSV create of `resource` may name in `version`: each writable field as the
 * version's record shows it, an object's members flattened (v2's `amount.value`,
 * `amount.currency`), worked out once per resource and version from the version's write schema.
 */
export function columnsOf(version: ApiVersion, resource: Resource): Map<string, Column> {
  let byVersion = plans.get(resource)
  if (!byVersion) {
    byVersion = new Map()
    plans.set(resource, byVersion)
  }
  let columns = byVersion.get(version.name)
  if (columns) return columns
  columns = new Map()
  const base = { type: 'object', properties: Object.fromEntries(resource.writableFields.map((n) => [n, {}])) }
  const shaped = schemaFor(version, resource, base, 'write').properties as Record<
    string,
    Record<string, unknown>
  >
  for (const [name, schema] of Object.entries(shaped)) {
    const members = schema.properties as Record<string, { type?: string }> | undefined
    if (!members) {
      const field = resource.fields[name]!
      columns.set(name, { name, path: [name], kind: KINDS[field.kind] ?? 'text', nullable: field.nullable })
      continue
    }
    for (const [member, sub] of Object.entries(members)) {
      const column = `${name}.${member}`
      const kind = sub.type === 'integer' ? 'integer' : sub.type === 'boolean' ? 'boolean' : 'word'
      columns.set(column, { name: column, path: [name, member], kind, nullable: false })
    }
  }
  byVersion.set(version.name, columns)
  return columns
}

const SYSTEM_FIELDS = new Set(['id', 'createdAt', 'updatedAt'])

/** Why a header cell names no column of the create, or null when it does. */
function headerProblem(resource: Resource, columns: Map<string, Column>, name: string): string | null {
  if (columns.has(name)) return null
  if (name === '') return 'is empty: every column needs a field name'
  const field = Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined
  if (SYSTEM_FIELDS.has(name) || field?.readOnly) return 'is read-only'
  const members = [...columns.keys()].filter((c) => c.startsWith(`${name}.`))
  if (members.length > 0) return `is an object: give its members as the columns ${members.join(', ')}`
  return `is not a field of ${resource.name}`
}

/**
 * The header row's columns, in order; every problem as a detail on `header.<name>`: a name that is
 * no writable field (unknown, read-only), a name given twice.
 */
export function headerColumns(
  resource: Resource,
  columns: Map<string, Column>,
  header: readonly (string | null)[],
): { columns: Column[]; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = []
  const seen = new Set<string>()
  const out: Column[] = []
  for (const [index, cell] of header.entries()) {
    const name = cell ?? ''
    const field = `header.${name || index}`
    const problem = headerProblem(resource, columns, name)
    if (problem) problems.push({ field, message: `column ${index + 1} ${problem}` })
    else if (seen.has(name))
      problems.push({ field, message: `column ${index + 1} names a field already named` })
    seen.add(name)
    if (!problem) out.push(columns.get(name)!)
  }
  return { columns: out, problems }
}

/** A cell left out: the member is absent from the body. */
export const ABSENT = Symbol('absent')

/** Text of a boolean cell: `true`/`false` in any case, and `1`/`0`. */
const BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false }

/**
 * A cell as a JSON value for its column: what cannot be read as the column's type stays text, so
 * that the create's validation answers it with the field's own message (`must be an integer`). An
 * empty cell (null: unquoted, nothing between the commas) is null for a nullable field and absent
 * otherwise; a quoted empty cell (`""`) is the empty text in a text column, and empty in the others. Returns an Error for a
 * JSON column's cell that is not JSON text.
 */
export function cellValue(column: Column, cell: string | null): unknown {
  if (cell === null || (cell === '' && column.kind !== 'text')) return column.nullable ? null : ABSENT
  switch (column.kind) {
    case 'text':
    case 'word':
      return cell
    case 'integer': {
      const trimmed = cell.trim()
      return /^[+-]?\d{1,16}$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? Number(trimmed) : cell
    }
    case 'boolean':
      return BOOLEANS[cell.trim().toLowerCase()] ?? cell
    case 'json':
      try {
        return JSON.parse(cell)
      } catch {
        return new Error('must be JSON text (a list as ["a", "b"], an object as {"k": 1})')
      }
  }
}
