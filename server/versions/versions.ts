import { ApiError, type ErrorDetail, validationError } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Presentation } from '../resources/presentation.ts'
import type { Json, VersionChange } from './change.ts'
import { moneyObjects } from './money.ts'

export interface ApiVersion {
  name: 'v1' | 'v2'
  prefix: string
  status: 'deprecated' | 'current'
  /** When the version was released, deprecated (RFC 9745) and goes away (RFC 8594). */
  releasedAt: string
  deprecatedAt?: string
  sunsetAt?: string
  /** Changes from the base (v1) shape, applied in order. */
  changes: readonly VersionChange[]
}

/** v1 stays 12 months after v2's launch (the specification asks for 12 to 18). */
export const V1: ApiVersion = {
  name: 'v1',
  prefix: '/api/v1',
  status: 'deprecated',
  releasedAt: '2026-01-15T00:00:00Z',
  deprecatedAt: '2026-11-01T00:00:00Z',
  sunsetAt: '2027-11-01T00:00:00Z',
  changes: [],
}

const V2: ApiVersion = {
  name: 'v2',
  prefix: '/api/v2',
  status: 'current',
  releasedAt: '2026-11-01T00:00:00Z',
  changes: [moneyObjects],
}

export const VERSIONS: readonly ApiVersion[] = [V1, V2]

const applies = (change: VersionChange, resource: Resource) => change.fields(resource).length > 0

/** The version whose prefix a path starts with (`/api/v2/orders` -> v2). Every request asks. */
export function versionOfPath(path: string): ApiVersion | undefined {
  for (const v of VERSIONS) {
    if (!path.startsWith(v.prefix)) continue
    if (path.length === v.prefix.length || path.charCodeAt(v.prefix.length) === 47) return v
  }
  return undefined
}

/** A request body in the version's shape -> the base shape the engine validates; 422 on shape errors. */
export function toBase(version: ApiVersion, resource: Resource, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body
  const problems: ErrorDetail[] = []
  let out = body as Json
  for (const change of version.changes)
    if (applies(change, resource)) out = change.request(resource, out, problems)
  if (problems.length > 0) throw validationError(problems)
  return out
}

/**
 * Runs the engine's write of `body` (a request `toBase` translated), answering its errors in the
 * version's words: a detail on a base field names the field as the version shows it (v2's
 * `amount.currency`, never the base `currency`), and details that become the same are one.
 */
export async function inVersion<T>(
  version: ApiVersion,
  resource: Resource,
  body: unknown,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write()
  } catch (error) {
    throw errorInVersion(version, resource, body, error)
  }
}

/** An engine's error about `body` (a request `toBase` translated) with its details in the version's words. */
export function errorInVersion(
  version: ApiVersion,
  resource: Resource,
  body: unknown,
  error: unknown,
): unknown {
  if (!(error instanceof ApiError) || error.details.length === 0) return error
  if (!body || typeof body !== 'object' || Array.isArray(body)) return error
  const changes = version.changes.filter((change) => applies(change, resource))
  if (changes.length === 0) return error
  let details: readonly ErrorDetail[] = error.details
  for (const change of changes) details = change.details(resource, details, body as Json)
  const unique = new Map(details.map((d) => [JSON.stringify([d.field, d.message]), d]))
  // new ApiError: the same error, of any code, with its details in the version's words.
  return new ApiError(error.code, error.message, {
    details: [...unique.values()],
    headers: error.headers,
    cause: error,
  })
}

/**
 * A record in the base shape -> the version's shape. An event's `data` is a record of the
 * resource it names, so it changes with that resource.
 */
export function fromBase(schema: Schema, version: ApiVersion, resource: Resource, record: Json): Json {
  if (version.changes.length === 0) return record
  let out = reshaped(version, resource, record)
  const data = record.data
  if (resource.name === 'events' && data && typeof data === 'object' && !Array.isArray(data)) {
    const of = schema.byName(String(record.resource))
    if (of) out = { ...out, data: fromBase(schema, version, of, data as Json) }
  }
  return out
}

/** A record's own members in the version's shape (an event's `data` as it was). */
function reshaped(version: ApiVersion, resource: Resource, record: Json): Json {
  let out = record
  for (const change of version.changes) if (applies(change, resource)) out = change.response(resource, out)
  return out
}

/** The base fields whose JSON the version changes for a resource (`amount`, `currency` in v2). */
export function changedFields(version: ApiVersion, resource: Resource): Set<string> {
  const fields = new Set<string>()
  for (const change of version.changes) for (const f of change.fields(resource)) fields.add(f)
  return fields
}

const names = new WeakMap<Resource, Map<string, readonly string[]>>()

/** The JSON field names of a record in the version (`id` first, the timestamps last): what `fields` may name. */
function fieldNames(version: ApiVersion, resource: Resource): readonly string[] {
  let byVersion = names.get(resource)
  if (!byVersion) {
    byVersion = new Map()
    names.set(resource, byVersion)
  }
  let known = byVersion.get(version.name)
  if (!known) {
    const sample: Json = { id: null }
    for (const name of resource.presented) sample[name] = null
    sample.createdAt = null
    sample.updatedAt = null
    known = Object.keys(reshaped(version, resource, sample))
    byVersion.set(version.name, known)
  }
  return known
}

/**
 * The base fields a record must be read with to show `fields` of the version: a field the version
 * reshapes needs every base field its change reads (v2's `amount` object needs `currency`); an
 * event's `data` needs `resource`, which says whose shape `data` takes.
 */
function baseFieldsOf(version: ApiVersion, resource: Resource, fields: readonly string[]): string[] {
  const changed = changedFields(version, resource)
  const base = new Set<string>()
  for (const field of fields) {
    if (changed.has(field)) for (const f of changed) base.add(f)
    else base.add(field)
    if (resource.name === 'events' && field === 'data') base.add('resource')
  }
  return [...base]
}

const presentations = new WeakMap<Schema, Map<ApiVersion, Presentation>>()

/**
 * The version as the engine's way out (server/resources/presentation.ts): the front doors hand it
 * to the engine, which reads records in the base shape and knows no version. The base version's
 * records go out as read, without a copy.
 */
export function presentationOf(schema: Schema, version: ApiVersion): Presentation {
  let ofSchema = presentations.get(schema)
  if (!ofSchema) {
    ofSchema = new Map()
    presentations.set(schema, ofSchema)
  }
  let presentation = ofSchema.get(version)
  if (!presentation) {
    presentation = {
      // Not only the resources a change names: an event's `data` is a record of another.
      records: (resource, records) =>
        version.changes.length === 0
          ? records
          : records.map((record) => fromBase(schema, version, resource, record)),
      fieldNames: (resource) => fieldNames(version, resource),
      columnsOf: (resource, fields) => baseFieldsOf(version, resource, fields),
      prefix: version.prefix,
    }
    ofSchema.set(version, presentation)
  }
  return presentation
}

/** The version's OpenAPI schema of a record or a write body. */
export function schemaFor(
  version: ApiVersion,
  resource: Resource,
  schema: Json,
  kind: 'record' | 'write',
): Json {
  let out = schema
  for (const change of version.changes)
    if (applies(change, resource)) out = change.schema(resource, out, kind)
  return out
}

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000)

/** The fixed part of a deprecated version's headers, worked out once (every response carries them). */
const fixedHeaders = new Map<ApiVersion, { deprecation: string; sunset: string; successor: string }>()

/**
 * The headers of every response of a deprecated version: `Deprecation` (RFC 9745, a date as
 * `@<unix-seconds>`, with the version as a parameter, as the contract fixes), `Sunset` (RFC 8594)
 * and `Link` to the same path in the current version (RFC 8288, `successor-version` of RFC 5829).
 */
export function addDeprecationHeaders(headers: Headers, version: ApiVersion, path: string): void {
  let fixed = fixedHeaders.get(version)
  if (!fixed) {
    fixed = {
      deprecation: `@${unixSeconds(version.deprecatedAt!)};version="${version.name}"`,
      sunset: new Date(version.sunsetAt!).toUTCString(),
      successor: VERSIONS.find((v) => v.status === 'current')!.prefix,
    }
    fixedHeaders.set(version, fixed)
  }
  headers.set('Deprecation', fixed.deprecation)
  headers.set('Sunset', fixed.sunset)
  headers.append('Link', `<${fixed.successor}${path.slice(version.prefix.length)}>; rel="successor-version"`)
}

/** The body of `GET /api/versions`: every live version, its status, dates and changes from the base. */
export function versionCatalog(schema: Schema): Json {
  return {
    data: VERSIONS.map((v) => ({
      version: v.name,
      status: v.status,
      path: v.prefix,
      releasedAt: v.releasedAt,
      deprecatedAt: v.deprecatedAt ?? null,
      sunset: v.sunsetAt ?? null,
      openapi: `${v.prefix}/openapi.json`,
      changes: v.changes.map((c) => {
        const changed = schema.resources.filter((r) => applies(c, r))
        return { description: c.description(changed), resources: changed.map((r) => r.name) }
      }),
    })),
  }
}
