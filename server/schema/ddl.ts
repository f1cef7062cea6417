/**
 * A resource's storage derived from its declaration, for either backend, by one code path: the
 * table (the id, the organization, each field's column, the timestamps), its unique constraints
 * (unique within the organization), the indexes its sorts and filters need, the indexes its
 * foreign keys need, and its full-text search. What differs between the backends is in DIALECTS.
 *
 * The declared collections' tables come from here alone (server/schema/changes.ts plans them,
 * server/schema/reconcile.ts applies them after the service's migrations); a database made before
 * keeps the hand-written tables it had, which this reproduces (test/schema/upgrade.test.ts).
 */
import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { columnOf } from '../store/columns.ts'
import { DIALECTS, type DialectName } from './ddl-dialects.ts'

/** An email address is one address whatever its case: it compares, and is unique, ignoring case. */
const caseless = (field: Field) => (field.schema as { format?: string }).format === 'email'

/**
 * The ordered statements that create `resource`'s table, unique constraints, indexes and full-text
 * search in `dialect`. `schema` names the tables its references point at; `orgs` (the service's
 * own) must exist, and on PostgreSQL the prelude `statementsFor` runs first.
 */
export function schemaFor(resource: Resource, dialect: DialectName, schema: Schema): string[] {
  const d = DIALECTS[dialect]
  const table = resource.table
  const fields = Object.entries(resource.fields).map(([name, field]) => ({
    name,
    field,
    column: columnOf(name),
  }))
  const search = fields.filter((f) => f.field.search).map((f) => f.column)
  const fts = search.length > 0 ? d.search(table, search) : { columns: [], statements: [] }

  const columns = [
    `id ${d.text} PRIMARY KEY`,
    `org_id ${d.text} NOT NULL REFERENCES orgs(id)`,
    ...fields.map(({ field, column }) => {
      const type =
        field.kind === 'integer'
          ? d.integer
          : field.kind === 'boolean'
            ? d.boolean
            : caseless(field)
              ? d.caselessText
              : d.text
      const target =
        field.references === undefined ? '' : ` REFERENCES ${tableOf(schema, field.references)}(id)`
      return `${column} ${type}${field.nullable ? '' : ' NOT NULL'}${target}`
    }),
    `created_at ${d.text} NOT NULL`,
    `updated_at ${d.text} NOT NULL`,
    ...fts.columns,
  ]
  const statements = [`CREATE TABLE ${table} (\n  ${columns.join(',\n  ')}\n)${d.tableOptions}`]
  const index = (name: string, list: string[], unique = false) =>
    statements.push(
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${table}_${name} ON ${table} (${list.join(', ')})`,
    )

  // Unique within the organization; the unique index also serves the field's sort.
  for (const { field, column } of fields)
    if (field.unique) index(`org_${column}_unique`, ['org_id', column], true)
  // The default sort, and the sort by updatedAt, per organization.
  index('org_created', ['org_id', 'created_at', 'id'])
  index('org_updated', ['org_id', 'updated_at', 'id'])
  for (const { field, column } of fields)
    if (field.sort && !field.unique) index(`org_${column}_sort`, ['org_id', column, 'id'])
  // Each filter (and the parent, which every nested list filters on) with the default sort.
  const parent = resource.parent?.field
  for (const { name, field, column } of fields)
    if (field.filter !== undefined || name === parent)
      index(`org_${column}`, ['org_id', column, 'created_at', 'id'])
  // A foreign key's own index: deleting the referenced row looks for rows pointing at it.
  for (const { field, column } of fields) if (field.references !== undefined) index(`${column}_fk`, [column])
  statements.push(...fts.statements)
  return statements
}

/**
 * What the generated statements rely on besides the service's own tables, once per database:
 * PostgreSQL's extensions and the immutable unaccent its search columns are generated with.
 */
const preludeFor = (dialect: DialectName): string[] => [...DIALECTS[dialect].prelude]

/** Every resource of `schema`, in its (dependency) order, after the prelude. */
export function statementsFor(schema: Schema, dialect: DialectName): string[] {
  return [...preludeFor(dialect), ...schema.resources.flatMap((r) => schemaFor(r, dialect, schema))]
}

function tableOf(schema: Schema, collection: string): string {
  const target = schema.byName(collection)
  if (!target) throw new Error(`no resource ${collection} to reference`)
  return target.table
}
