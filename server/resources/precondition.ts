import { preconditionFailed } from '../../shared/errors.ts'
import type { Entity } from '../store/types.ts'

/**
 * An `If-Match` precondition as a front door read it. The front door says how a record is tagged
 * (the ETag its reads hand out: the record as the caller's API version shows it, hashed); the
 * engine decides when to compare: inside the write's transaction, against the row it has locked,
 * since a tag compared before the transaction could be stale by the time the write lands.
 */
export interface Precondition {
  /** The tags the request lists; `*` matches any current record. */
  ifMatch: readonly string[]
  /** The strong ETag of `entity` as the caller's reads show it. */
  tagOf: (entity: Entity) => string
}

/** RFC 9110 §13.1.1: If-Match uses the strong comparison; 412 and no change when nothing matches. */
export function checkPrecondition(precondition: Precondition | undefined, current: Entity): void {
  if (precondition === undefined || precondition.ifMatch.includes('*')) return
  const tag = precondition.tagOf(current)
  if (precondition.ifMatch.includes(tag)) return
  throw preconditionFailed('The record has changed since the given ETag (If-Match).', {
    details: [{ field: 'If-Match', message: `does not match the current ETag ${tag}` }],
  })
}
