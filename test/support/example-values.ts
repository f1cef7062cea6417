import type { Field, Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Tenant } from './server.ts'

/** Values of text fields declared with a format. */
const FORMATTED: Record<string, (n: number, tag: string) => string> = {
  email: (n, tag) => `person${n}.${tag}@example.com`,
  uri: (n, tag) => `https://example.com/${tag}/${n}`,
  currency: () => 'EUR',
  country: () => 'DE',
}

/** A tag that keeps a test's unique values apart from another run's in the same database. */
const runTag = () => Math.random().toString(36).slice(2, 8)

/**
 * A valid value of `field` as its declaration allows (the contract's field types): text within its
 * lengths and format, an integer within its limits, an enum's first value, true, a timestamp, a
 * JSON object, a list within its limits; a reference is `idOf` its target. The `n`-th value of a
 * field differs from the others, so unique fields take one value per record.
 */
export function exampleValue(
  field: Field,
  n: number,
  idOf: (collection: string) => string,
  tag = runTag(),
): unknown {
  const d = field.declaration
  switch (d.type) {
    case 'text': {
      const formatted = d.format ? FORMATTED[d.format] : undefined
      if (formatted) return formatted(n, tag)
      const text = `Example ${n} ${tag}`.slice(0, d.max ?? 200).trimEnd()
      return text.padEnd(d.min ?? 1, 'x')
    }
    case 'integer':
      return Math.min(d.max ?? Number.MAX_SAFE_INTEGER, (d.min ?? 0) + 1 + n)
    case 'enum':
      return d.values![0]
    case 'boolean':
      return true
    case 'reference':
      return idOf(d.to!)
    case 'timestamp':
      return new Date(Date.UTC(2026, 0, 1 + n)).toISOString()
    case 'json':
      return { example: n }
    case 'list':
      return ['first', `item ${n}`]
        .slice(0, d.maxItems ?? 100)
        .map((item) => item.slice(0, d.maxLength ?? 100))
  }
}

/**
 * Values a declaration cannot tell, by collection: an OAuth client's lists hold grant types,
 * redirect URIs and scopes the server knows (`read:users` is in every schema), and `public` is set
 * on create only, so every example record keeps one value of it.
 */
export const KNOWN_VALUES: Record<string, Record<string, unknown>> = {
  'oauth-clients': {
    public: false,
    grantTypes: ['client_credentials', 'authorization_code'],
    redirectUris: ['https://example.com/callback'],
    scopes: ['read:users'],
  },
}

/** A create body of `resource` with every field a client may send, the `n`-th of its kind. */
export function exampleRecord(
  resource: Resource,
  n: number,
  idOf: (collection: string) => string,
): Record<string, unknown> {
  const tag = runTag()
  const known = KNOWN_VALUES[resource.name] ?? {}
  return Object.fromEntries(
    resource.writableFields.map((name) => [
      name,
      Object.hasOwn(known, name)
        ? structuredClone(known[name])
        : exampleValue(resource.fields[name]!, n, idOf, tag),
    ]),
  )
}

/**
 * Records of any collection of `schema` made through the API (v1, whose bodies are the declared
 * fields as they are) for `tenant`: what a record references, and its parent, are made first, or
 * taken from `existing` (an id by collection).
 */
export function fixtures(schema: Schema, tenant: Tenant, existing: Record<string, string> = {}) {
  const made = new Map<string, string>(Object.entries(existing))
  let n = 0
  const idOf = async (collection: string): Promise<string> =>
    made.get(collection) ?? String((await create(collection)).id)

  /** A new record of `collection` (with `overrides`), as the create answered it. */
  async function create(
    collection: string,
    overrides: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const resource = schema.byName(collection)
    if (!resource) throw new Error(`the schema has no collection ${collection}`)
    const targets: Record<string, string> = {}
    for (const name of resource.writableFields) {
      const target = resource.fields[name]!.references
      if (target !== undefined && !(name in overrides)) targets[target] ??= await idOf(target)
    }
    const parent = resource.parent
    const path = parent
      ? `/api/v1/${parent.collection}/${await idOf(parent.collection)}/${collection}`
      : `/api/v1/${collection}`
    const body = { ...exampleRecord(resource, n++, (target) => targets[target]!), ...overrides }
    const response = await tenant.fetch(path, { method: 'POST', json: body })
    if (response.status !== 201)
      throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
    const record = (await response.json()) as Record<string, unknown>
    if (!made.has(collection)) made.set(collection, String(record.id))
    return record
  }
  return { create, idOf }
}
