import type { Resource } from '../../shared/resources/index.ts'
import type { Entity } from './reads.ts'

/** A record as a client is shown it. */
export type Shown = Record<string, unknown>

/**
 * How the front door that asked shows records (for REST and QUERY, the API version:
 * server/versions/ makes one per version). The engine reads, filters and pages records in its
 * one internal shape and knows no version; it hands them to this on the way out.
 */
export interface Presentation {
  /** Records in the internal shape -> as the client sees them (the same array when nothing changes). */
  records: (resource: Resource, records: Entity[]) => Shown[]
  /** The field names a client sees, in order: what its `fields` may name. */
  fieldNames: (resource: Resource) => readonly string[]
  /** The internal fields to read to show the client's `fields`. */
  columnsOf: (resource: Resource, fields: readonly string[]) => string[]
  /** Where the client's paths start (`/api/v2`): the `next` of an expanded nested page. */
  prefix: string
}
