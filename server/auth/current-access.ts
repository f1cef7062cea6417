import type { Schema } from '../../shared/schema/schema.ts'
import { StampedCache } from '../store/change-stamp.ts'
import type { Store } from '../store/store.ts'
import { roleScopes } from './roles.ts'
import type { Principal } from './tokens.ts'

type RoleScopes = ReadonlyMap<string, ReadonlySet<string>>

/** Each role's scopes, worked out once (an unknown role allows nothing). */
const roleScopeSets = (schema: Schema): RoleScopes =>
  new Map(['admin', 'member', 'viewer'].map((role) => [role, new Set(roleScopes(schema, role))]))
const NOTHING: ReadonlySet<string> = new Set()

/** The principal itself when its role allows all its scopes; else a copy with the rest dropped. */
function cappedByRole(roles: RoleScopes, principal: Principal, role: string): Principal {
  const allowed = roles.get(role) ?? NOTHING
  for (const scope of principal.scopes) {
    if (allowed.has(scope)) continue
    return { ...principal, scopes: new Set([...principal.scopes].filter((s) => allowed.has(s))) }
  }
  return principal
}

/** What a token stands for now, read from the database: null when revoked. */
async function lookUp(store: Store, roles: RoleScopes, principal: Principal): Promise<Principal | null> {
  if (principal.kind === 'client') {
    const jti = principal.tokenId
    // A client-credentials token is refused once revoked itself, or once its client is.
    const [tokenRevoked, clientRevoked] = await Promise.all([
      jti === undefined ? false : store.revocations.isRevoked(jti),
      store.clients.isRevoked(principal.clientId),
    ])
    return tokenRevoked || clientRevoked ? null : principal
  }
  // A user token without a grant is none of ours; a grant is gone with its user, and revoked with
  // its client.
  if (principal.grantId === undefined || !(await store.grants.isLive(principal.grantId))) return null
  return cappedByRole(roles, principal, (await store.users.roleOf(principal.subject)) ?? '')
}

/**
 * The principal an access token stands for at the time of the request (docs/oauth.md, "How
 * revocation and role changes reach access tokens"): null when it was revoked since it was issued
 * (a user token through its grant, `sid`; a client-credentials token through its `jti` or its
 * client), and for a user token its scopes capped by the user's current role, so that a demotion
 * takes effect without waiting for the token to expire. The token's own scopes stay the ceiling: a
 * promotion gives back no more than it was issued with.
 *
 * The answer is cached per token until the database changes (any write, here at once, in another
 * process within 250 ms): requests between writes look nothing up and allocate nothing.
 */
export function currentAccess(
  store: Store,
  schema: Schema,
): (principal: Principal) => Principal | null | Promise<Principal | null> {
  const current = new StampedCache<Principal | null>(store.changes)
  const roles = roleScopeSets(schema)
  return (principal) => {
    const jti = principal.tokenId
    // Every token this server issues has a jti; the cache is keyed by it.
    if (jti === undefined) return lookUp(store, roles, principal)
    return current.getOrRead(jti, () => lookUp(store, roles, principal))
  }
}
