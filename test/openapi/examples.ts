import { type ApiVersion, changedFields, fromBase } from '../../server/versions/versions.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { KNOWN_VALUES } from '../support/example-values.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let serial = 0

/** An example value for a field, from its declaration; `refs` holds an id per collection. */
function exampleValue(resource: Resource, name: string, refs: Record<string, string>): unknown {
  const field = resource.fields[name]!
  const format = (field.schema as { format?: string }).format
  serial += 1
  const known = KNOWN_VALUES[resource.name]
  if (known && Object.hasOwn(known, name)) return structuredClone(known[name])
  switch (field.kind) {
    case 'reference':
      return refs[field.references!]
    case 'enum':
      return field.default ?? field.values![0]
    case 'integer':
      return 1200
    case 'boolean':
      return true
    case 'json':
      return field.default ?? {}
    default:
      // A webhook URL the test server (--allow-http-webhooks) accepts; nothing listens there.
      if (format === 'uri') return 'http://127.0.0.1:9/hook'
      if (format === 'email') return `person-${serial}@example.com`
      if (format === 'currency') return 'EUR'
      if (format === 'country') return 'DE'
      return field.unique ? `Example-${serial}` : 'Example'
  }
}

/**
 * A create (and PUT) body of every writable field, in the version's shape (v2's money objects).
 * Fields only an admin may set keep their defaults.
 */
export function exampleBody(
  version: ApiVersion,
  resource: Resource,
  refs: Record<string, string>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const name of resource.writableFields)
    if (!resource.fields[name]!.privileged) body[name] = exampleValue(resource, name, refs)
  return fromBase(SCHEMA, version, resource, body)
}

/** One field a PATCH may change, with a new value: text first, then numbers, then an enum's other value. */
export function examplePatch(version: ApiVersion, resource: Resource): Record<string, unknown> {
  const changed = changedFields(version, resource)
  const fields = resource.writableFields.filter((n) => !changed.has(n) && !resource.fields[n]!.privileged)
  const of = (kind: string) =>
    fields.find((n) => {
      const f = resource.fields[n]!
      return f.kind === kind && !f.unique && !(f.schema as { format?: string }).format
    })
  const text = of('text')
  if (text) return { [text]: 'Changed' }
  const integer = of('integer')
  if (integer) return { [integer]: 7 }
  const enumerated = of('enum')!
  const field = resource.fields[enumerated]!
  return { [enumerated]: field.values!.find((v) => v !== field.default) }
}
