/**
 * The tables of declared collections a database does not have yet (a schema file's new
 * collections), made at start in the migrating transaction: a new collection loses nothing, so it
 * is applied without asking (contract, "Your own resources"). Changes to existing tables are the
 * schema changes' (`schema plan`, `schema apply`).
 */
import type { Schema } from '../../shared/schema/schema.ts'
import { schemaFor } from './ddl.ts'
import { DIALECTS, type DialectName } from './ddl-dialects.ts'

/**
 * PostgreSQL refuses a foreign key to a table that does not exist yet, which two collections
 * referring to each other cannot avoid (teams.leadId and members.teamId): such a key is left out of
 * its CREATE TABLE and added once every table exists, under the name PostgreSQL gives either way
 * (`members_team_id_fkey`). SQLite takes the reference as written and checks it on use.
 */
function deferForwardKeys(statements: string[], existing: Set<string>, table: string): string[] {
  const later: string[] = []
  const create = statements[0]!.replace(
    /^(\s*(\w+) [^\n]*?) REFERENCES (\w+)\(id\)(,?)$/gm,
    (line, column: string, name: string, target: string, comma: string) => {
      if (existing.has(target) || target === table) return line
      later.push(`ALTER TABLE ${table} ADD FOREIGN KEY (${name}) REFERENCES ${target}(id)`)
      return `${column}${comma}`
    },
  )
  existing.add(table)
  return [create, ...statements.slice(1), ...later]
}

/** The statements that create every declared collection of `schema` whose table is not in `existing`. */
export function newCollectionStatements(
  schema: Schema,
  dialect: DialectName,
  existing: ReadonlySet<string>,
): string[] {
  const missing = schema.resources.filter((r) => !r.service && !existing.has(r.table))
  if (missing.length === 0) return []
  const made = new Set(existing)
  const creates: string[] = []
  const keys: string[] = []
  for (const resource of missing) {
    const statements = schemaFor(resource, dialect, schema)
    if (dialect === 'sqlite') {
      creates.push(...statements)
      continue
    }
    const deferred = deferForwardKeys(statements, made, resource.table)
    const alters = deferred.filter((s) => s.startsWith('ALTER TABLE'))
    creates.push(...deferred.filter((s) => !alters.includes(s)))
    keys.push(...alters)
  }
  return [...DIALECTS[dialect].prelude, ...creates, ...keys]
}
