import type { ErrorDetail } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'

export type Json = Record<string, unknown>

/**
 * One change a version makes to the representation, applied at the edge (as Stripe describes its
 * version changes): the engine speaks the base shape (v1), and a version is the base plus its
 * changes. Each change translates request bodies to the base shape, records from it, and the
 * OpenAPI schemas, for the resources it names.
 */
export interface VersionChange {
  /** One line for CHANGELOG.md and GET /api/versions, naming the resources it changes. */
  description: (changed: readonly Resource[]) => string
  /** The base fields of a resource whose JSON it changes; none when it leaves the resource alone. */
  fields: (resource: Resource) => readonly string[]
  /** A request body in this version's shape -> the base shape; problems are 422 details. */
  request: (resource: Resource, body: Json, problems: ErrorDetail[]) => Json
  /** A record in the base shape -> this version's shape. */
  response: (resource: Resource, record: Json) => Json
  /** The record schema (and the write schemas) of the OpenAPI document, changed likewise. */
  schema: (resource: Resource, schema: Json, kind: 'record' | 'write') => Json
  /**
   * Details of an error the engine found in `body` (the request in the base shape), naming base
   * fields -> the same details naming this version's fields.
   */
  details: (resource: Resource, details: readonly ErrorDetail[], body: Json) => ErrorDetail[]
}
