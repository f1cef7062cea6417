/**
 * SQLite's table rebuild, for what its ALTER TABLE cannot do (a column's type or nullability, a
 * new column without a value to give the rows there, a removed foreign key): the procedure of
 * https://www.sqlite.org/lang_altertable.html#otheralter, run inside the change set's transaction
 * with foreign keys off and checked before the commit (server/schema/reconcile.ts).
 */
import type { Resource } from '../../shared/resources/index.ts'
import type { Pair } from './change-kept-field.ts'
import { converted, dropSearch, literalOf, makeSearch, type Parts } from './change-parts.ts'

/**
 * The statements that make `before`'s table into `after`'s: a new table as the next declaration
 * makes it, every row copied with its rowid (the external-content FTS index is keyed by it), its
 * id and timestamps, each kept field's values (under a renamed field's new name, converted where
 * the type changed) and each new field's default; then the old table dropped, the new one renamed,
 * its indexes, FTS table and triggers made, and the FTS index rebuilt from the rows.
 */
export function rebuildStatements(pairs: Pair[], before: Parts, after: Parts, next: Resource): string[] {
  const t = after.table
  const temporary = `${t}_new`
  const columns: string[] = ['rowid', 'id', 'org_id']
  const values: string[] = ['rowid', 'id', 'org_id']
  for (const name of Object.keys(next.fields)) {
    const pair = pairs.find((p) => p.after?.name === name)!
    const a = pair.after!
    columns.push(a.column)
    if (pair.before) values.push(converted(pair.before.column, pair.before.field, a.field, 'sqlite'))
    else if (a.field.default !== undefined && a.field.default !== null)
      values.push(literalOf(a.field, 'sqlite'))
    // Nothing to give a new required field: the copy fails while the table has rows (its probe says how many).
    else values.push('NULL')
  }
  columns.push('created_at', 'updated_at')
  values.push('created_at', 'updated_at')
  return [
    ...dropSearch(before, 'sqlite'),
    after.create.replace(`CREATE TABLE ${t} (`, `CREATE TABLE ${temporary} (`),
    `INSERT INTO ${temporary} (${columns.join(', ')})\n  SELECT ${values.join(', ')} FROM ${t}`,
    // Its indexes and triggers go with it.
    `DROP TABLE ${t}`,
    `ALTER TABLE ${temporary} RENAME TO ${t}`,
    ...[...after.indexes.values()].map((i) => i.statement),
    ...makeSearch(after, 'sqlite'),
  ]
}
