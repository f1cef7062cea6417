import { StampedCache } from '../store/change-stamp.ts'
import type { Database } from '../store/db.ts'
import { grantIsLive } from '../store/oauth-grants.ts'
import { tokenIdRevoked } from '../store/oauth-revoked-tokens.ts'
import type { Principal } from './tokens.ts'

/**
 * Whether an access token was revoked since it was issued: a user token through its grant
 * (`sid`: revoked, or gone with its user), a client-credentials token through its `jti`. The
 * answer is cached until the database changes (any write, here or in another process), so a
 * revocation takes effect on the next request while reads skip the look-up.
 */
export function revocationCheck(db: Database): (principal: Principal) => boolean {
  const revoked = new StampedCache<boolean>(db)
  return (principal) => {
    if (principal.grantId !== undefined) {
      const grant = principal.grantId
      return revoked.get(`g ${grant}`, () => !grantIsLive(db, grant))
    }
    if (principal.kind === 'user') return true
    const jti = principal.tokenId
    return jti !== undefined && revoked.get(`j ${jti}`, () => tokenIdRevoked(db, jti))
  }
}
