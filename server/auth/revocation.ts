import type { Database } from '../store/db.ts'
import { grantIsLive } from '../store/oauth-grants.ts'
import { tokenIdRevoked } from '../store/oauth-revoked-tokens.ts'
import type { Principal } from './tokens.ts'

/**
 * Whether an access token was revoked since it was issued: a user token through its grant
 * (`sid`: revoked, or gone with its user), a client-credentials token through its `jti`. Either
 * is one primary-key lookup, so it runs on every request.
 */
export function revocationCheck(db: Database): (principal: Principal) => boolean {
  return (principal) => {
    if (principal.grantId !== undefined) return !grantIsLive(db, principal.grantId)
    if (principal.kind === 'user') return true
    return principal.tokenId !== undefined && tokenIdRevoked(db, principal.tokenId)
  }
}
