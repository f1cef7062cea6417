/**
 * The probes of narrower limits: one query answering `n`, the stored records a limit would leave
 * out. A probe reads the database as it is before the plan runs (the previous table and column
 * names), so `schema plan` can say how many without changing anything.
 */
import type { FieldDeclaration } from '../../shared/resources/fields.ts'
import { quoted } from './change-parts.ts'
import type { DialectName } from './ddl-dialects.ts'

interface Limits {
  min?: number
  max?: number
  maxItems?: number
  maxLength?: number
  values?: readonly string[]
}

/** Counts the records of `table` whose `column` (a field declared as `field`) falls outside `limits`. */
export function limitProbe(
  table: string,
  column: string,
  field: FieldDeclaration,
  limits: Limits,
  dialect: DialectName,
): string {
  const pg = dialect === 'postgres'
  // A text's limits are on its length (in characters, on both backends), an integer's on its value.
  const measured = field.type === 'text' ? `length(${column})` : column
  const outside: string[] = []
  if (limits.min !== undefined) outside.push(`${measured} < ${limits.min}`)
  if (limits.max !== undefined) outside.push(`${measured} > ${limits.max}`)
  if (limits.maxItems !== undefined)
    outside.push(`json_array_length(${pg ? `${column}::json` : column}) > ${limits.maxItems}`)
  if (limits.maxLength !== undefined)
    outside.push(
      pg
        ? `EXISTS (SELECT 1 FROM json_array_elements_text(${column}::json) AS item(value) WHERE length(item.value) > ${limits.maxLength})`
        : `EXISTS (SELECT 1 FROM json_each(${column}) WHERE length(value) > ${limits.maxLength})`,
    )
  if (limits.values !== undefined)
    outside.push(
      `CAST(${column} AS ${pg ? 'text' : 'TEXT'}) NOT IN (${limits.values.map(quoted).join(', ')})`,
    )
  return `SELECT count(*) AS n FROM ${table} WHERE ${outside.map((o) => `(${o})`).join(' OR ')}`
}
