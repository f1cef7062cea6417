import type { Schema } from '../../shared/schema/schema.ts'

const ACTIONS = new Map<string, readonly string[]>([
  ['viewer', ['read']],
  ['member', ['read', 'write']],
  ['admin', ['read', 'write', 'delete']],
])

const adminScopes = new WeakMap<Schema, ReadonlySet<string>>()

/** The scopes of the collections declared `adminOnly` (an organization's OAuth clients), worked out once. */
function adminOnlyScopes(schema: Schema): ReadonlySet<string> {
  let scopes = adminScopes.get(schema)
  if (!scopes) {
    scopes = new Set(schema.resources.filter((r) => r.adminOnly).flatMap((r) => Object.values(r.scopes)))
    adminScopes.set(schema, scopes)
  }
  return scopes
}

/**
 * What a user's role lets a token carry (the contract: `viewer` reads only). viewer: every
 * `read:*`; member: `read:*` and `write:*`; admin: everything, bulk `delete:*` included. The
 * scopes of a collection declared `adminOnly` are an admin's alone. An unknown role allows nothing.
 */
export function roleScopes(schema: Schema, role: string): string[] {
  const allowed = ACTIONS.get(role) ?? []
  const adminOnly = role === 'admin' ? new Set<string>() : adminOnlyScopes(schema)
  return schema.scopes.filter((scope) => allowed.includes(scope.split(':')[0]!) && !adminOnly.has(scope))
}
