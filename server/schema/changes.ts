/**
 * The changes that make a database holding `previous` follow `next`. A first, small planner: it
 * knows a new collection (created) and a removed one (dropped, destructive); any other difference
 * of a collection is one destructive change it cannot make yet. The full planner (fields, limits,
 * indexes, renames) replaces it.
 */
import { canonicalJson } from '../../shared/canonical-json.ts'
import {
  type ResourceDeclaration,
  resourceDeclarationOf,
  type SchemaDeclaration,
  schemaFromDeclaration,
} from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { SchemaChange } from './change.ts'
import { preludeFor, schemaFor } from './ddl.ts'
import type { DialectName } from './ddl-dialects.ts'

/** A collection's declaration as compared: `renamedFrom` says where it came from, not what it is. */
const comparable = (declaration: ResourceDeclaration) =>
  canonicalJson({ ...declaration, renamedFrom: undefined })

/** Every change from `previous` (null: a database without declared collections) to `next`, in order. */
export function planChanges(
  previous: SchemaDeclaration | null,
  next: Schema,
  dialect: DialectName,
): SchemaChange[] {
  const before = previous?.resources ?? {}
  const changes: SchemaChange[] = []
  let prelude = dialect === 'postgres'
  for (const resource of next.resources) {
    if (resource.service) continue
    const was = before[resource.name]
    if (was === undefined) {
      const statements = schemaFor(resource, dialect, next)
      changes.push({
        description: `add collection ${resource.name}`,
        destructive: false,
        statements: prelude ? [...preludeFor(dialect), ...statements] : statements,
      })
      prelude = false
    } else if (comparable(was) !== comparable(resourceDeclarationOf(resource))) {
      changes.push({
        description: `change collection ${resource.name} (not yet supported)`,
        destructive: true,
        statements: [],
      })
    }
  }
  // Dependants first: a collection referencing another is dropped before it.
  const removed = previous ? schemaFromDeclaration(previous).resources.filter((r) => !r.service) : []
  for (const { name, table } of removed.reverse())
    if (next.byName(name) === undefined)
      changes.push({
        description: `remove collection ${name}`,
        destructive: true,
        statements: [
          ...(dialect === 'sqlite' ? [`DROP TABLE IF EXISTS ${table}_fts`] : []),
          `DROP TABLE ${table}`,
        ],
      })
  return changes
}
