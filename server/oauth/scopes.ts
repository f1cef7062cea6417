import { ALL_SCOPES } from '../../shared/resources/index.ts'
import { OAuthError } from './errors.ts'

const KNOWN = new Set(ALL_SCOPES)

/**
 * The scope to grant: what was asked (or, when nothing was, everything allowed) intersected with
 * what the client and the user's role allow. Unknown or disallowed scopes are invalid_scope.
 */
export function grantScope(requested: string | undefined, allowed: readonly string[]): string[] {
  if (requested === undefined || requested.trim() === '') return [...allowed]
  const asked = [...new Set(requested.split(' ').filter(Boolean))]
  const unknown = asked.filter((s) => !KNOWN.has(s))
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`)
  const permitted = new Set(allowed)
  const refused = asked.filter((s) => !permitted.has(s))
  if (refused.length > 0)
    throw new OAuthError('invalid_scope', `This client may not ask for: ${refused.join(' ')}.`)
  return asked
}
