/**
 * Values of the fields of a random schema (random-schema.ts) for the property tests: the `n`-th value
 * of a field is valid, differs from the others of that field (unique fields take one per record) and
 * sorts after the (n-1)-th the same way in SQLite and PostgreSQL (ASCII, no spaces, no case mixed).
 */
import type { Field, Resource } from '../../shared/resources/index.ts'

const CURRENCIES = ['CHF', 'EUR', 'GBP', 'JPY', 'NOK', 'SEK', 'USD', 'ZAR', 'AUD', 'CAD']
const COUNTRIES = ['AT', 'BE', 'DE', 'ES', 'FR', 'IT', 'NL', 'PT', 'SE', 'CH']

/** The `n`-th value (0-9) of `field`; `tag` keeps one run's text apart from another's; `idOf` a reference's target. */
export function nthValue(
  field: Field,
  n: number,
  tag: string,
  idOf: (collection: string) => string,
): unknown {
  const d = field.declaration
  switch (d.type) {
    case 'text': {
      if (d.format === 'email') return `p${n}${tag}@example.com`
      if (d.format === 'uri') return `https://example.com/${tag}/${n}`
      if (d.format === 'currency') return CURRENCIES[n]
      if (d.format === 'country') return COUNTRIES[n]
      // One word whose first letter orders it: a search for the whole value finds it.
      return `${'abcdefghij'[n]}word${tag}`.slice(0, d.max ?? 200).padEnd(d.min ?? 1, 'x')
    }
    case 'integer':
      return (d.min ?? 0) + n
    case 'boolean':
      return n % 2 === 1
    case 'enum':
      return d.values![n % d.values!.length]
    case 'reference':
      return idOf(d.to!)
    case 'timestamp':
      return new Date(Date.UTC(2025, 0, 1 + n, n)).toISOString()
    case 'json':
      return { n, nested: { tag, list: [n, 'x', null, true] } }
    case 'list':
      return [`a${n}`, `b${n}`].slice(0, d.maxItems ?? 100)
  }
}

/** Whether a create may leave `field` out. */
const optional = (field: Field) => !field.required

/**
 * A create body of `resource`: every field a client may send (`full`), or only the required ones;
 * `overrides` replace what it would send.
 */
export function bodyOf(
  resource: Resource,
  n: number,
  full: boolean,
  tag: string,
  idOf: (collection: string) => string,
): Record<string, unknown> {
  return Object.fromEntries(
    resource.writableFields
      .filter((name) => full || !optional(resource.fields[name]!))
      .map((name) => [name, nthValue(resource.fields[name]!, n, tag, idOf)])
      // A reference to a collection with no record yet (a nullable one, to a later collection) is left out.
      .filter(([, value]) => value !== undefined),
  )
}

/** What a record made from `body` holds in each field: what was sent, else its default or null. */
export function expectedRecord(
  resource: Resource,
  body: Record<string, unknown>,
  parentId: string | undefined,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(resource.fields).map(([name, field]) => {
      if (name in body) return [name, body[name]]
      if (resource.parent?.field === name) return [name, parentId]
      // A client's token has no user: a field that defaults to the caller is null.
      return [name, field.default ?? null]
    }),
  )
}

/** Orders two values of one field as the API sorts them ascending. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0
  // Null is the greatest value (docs/api.md).
  if (a === null) return 1
  if (b === null) return -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  return String(a) < String(b) ? -1 : 1
}
