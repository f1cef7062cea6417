import { ApiError } from '../../shared/errors.ts'
import { sha256Base64url } from '../crypto/hash.ts'

/**
 * Strong entity tag of a JSON representation: a hash of the exact bytes sent, so equal tags mean
 * byte-identical bodies (RFC 9110 §8.8.3).
 */
export function entityTag(body: string): string {
  return `"${sha256Base64url(body).slice(0, 27)}"`
}

/** The tags listed in an If-Match or If-None-Match header; `*` stays as is. */
export function parseTagList(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
}

/** RFC 9110 §13.1.1: If-Match uses the strong comparison; 412 and no change when nothing matches. */
export function checkIfMatch(ifMatch: string[] | undefined, current: string): void {
  if (ifMatch === undefined || ifMatch.includes('*') || ifMatch.includes(current)) return
  throw new ApiError('PRECONDITION_FAILED', 'The record has changed since the given ETag (If-Match).', [
    { field: 'If-Match', message: `does not match the current ETag ${current}` },
  ])
}
