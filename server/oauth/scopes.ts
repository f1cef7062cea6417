import type { Schema } from '../../shared/schema/schema.ts'
import { OAuthError } from './errors.ts'

/**
 * The scopes a request asks for (RFC 6749 §3.3: space-delimited, order and repeats do not
 * matter), or null when it asks for none. A scope the schema does not define is invalid_scope.
 */
export function parseScope(schema: Schema, requested: string | undefined): string[] | null {
  if (requested === undefined || requested.trim() === '') return null
  const asked = [...new Set(requested.split(' ').filter(Boolean))]
  const unknown = asked.filter((s) => !schema.scopes.includes(s))
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`)
  return asked
}

/**
 * The client-credentials scope: what was asked (or, when nothing was, everything allowed), each
 * of which the client must be allowed; unknown or disallowed scopes are invalid_scope.
 */
export function grantScope(
  schema: Schema,
  requested: string | undefined,
  allowed: readonly string[],
): string[] {
  const asked = parseScope(schema, requested)
  if (asked === null) return [...allowed]
  const permitted = new Set(allowed)
  const refused = asked.filter((s) => !permitted.has(s))
  if (refused.length > 0)
    throw new OAuthError('invalid_scope', `This client may not ask for: ${refused.join(' ')}.`)
  return asked
}

/**
 * The scope a user grants: what was asked (everything, when nothing was) intersected with every
 * `limit` (what the client may ask for, what the user's role allows), in the service's order.
 */
export function intersectScope(
  schema: Schema,
  asked: readonly string[] | null,
  ...limits: (readonly string[])[]
): string[] {
  const sets = limits.map((l) => new Set(l))
  const wanted = asked === null ? null : new Set(asked)
  return schema.scopes.filter((s) => (wanted === null || wanted.has(s)) && sets.every((set) => set.has(s)))
}
