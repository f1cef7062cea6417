import type { Resource } from '../shared/resources/index.ts'
import { UsageError } from './errors.ts'
import { suggest } from './resources.ts'

/**
 * The fields of a body given as items (`pages=120`), typed as the collection declares them: a
 * whole number for an integer field, true or false for a boolean one, a list of strings for a
 * list field (its items separated by commas: `scopes=read:books,write:books`), so that `key=value`
 * works where httpie would need `key:=json` (which an item holding a comma still needs); an enum value not among the field's values is refused
 * before any request, with the nearest one. Other fields, and `--data`, are sent as given.
 */
export function typedFields(resource: Resource, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body }
  for (const [name, value] of Object.entries(body)) {
    const field = resource.writableFields.includes(name) ? resource.fields[name] : undefined
    if (!field || typeof value !== 'string') continue
    if (field.kind === 'integer' && !field.currencyField && /^-?\d{1,15}$/.test(value))
      out[name] = Number(value)
    else if (field.kind === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true'
    else if (field.declaration.type === 'list')
      out[name] = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    else if (field.kind === 'enum' && !field.values!.includes(value)) {
      const hint = suggest(value, [...field.values!])
      throw new UsageError(
        `${name} takes one of ${field.values!.join(', ')} (not "${value}"${hint ? `; did you mean ${hint}?` : ''})`,
      )
    }
  }
  return out
}
