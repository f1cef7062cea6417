import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'

/**
 * The principal admin commands act as: everything, inside one organization. Their events show it
 * as the actor `{type: 'system', id: 'api-server'}`.
 */
export function systemPrincipal(schema: Schema, orgId: string): Principal {
  return {
    kind: 'system',
    subject: 'api-server',
    orgId,
    clientId: 'api-server',
    scopes: new Set(schema.scopes),
    expiresAt: Number.MAX_SAFE_INTEGER,
  }
}
