import type { Schema } from '../../shared/schema/schema.ts'

const ACTIONS = new Map<string, readonly string[]>([
  ['viewer', ['read']],
  ['member', ['read', 'write']],
  ['admin', ['read', 'write', 'delete']],
])

/**
 * What a user's role lets a token carry (the contract: `viewer` reads only). viewer: every
 * `read:*`; member: `read:*` and `write:*`; admin: everything, bulk `delete:*` included. An
 * unknown role allows nothing.
 */
export function roleScopes(schema: Schema, role: string): string[] {
  const allowed = ACTIONS.get(role) ?? []
  return schema.scopes.filter((scope) => allowed.includes(scope.split(':')[0]!))
}
