import { conflict, type ErrorDetail, validationError } from '../../shared/errors.ts'
import { oauthClients } from '../../shared/resources/oauth-clients.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { EngineContext, ResourceHooks } from '../resources/context.ts'
import { defaultGrantTypes, type Entity, GRANT_TYPES } from '../store/types.ts'
import { redirectUriProblem } from './redirect-uri.ts'

type Values = Record<string, unknown>

const strings = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : [])

/** Each value on its own: known grant types and scopes, registrable redirect URIs. */
function checkEach(schema: Schema, values: Values, details: ErrorDetail[]): void {
  if (values.grantTypes !== undefined) {
    const unknown = strings(values.grantTypes).find((g) => !(GRANT_TYPES as readonly string[]).includes(g))
    if (unknown !== undefined)
      details.push({
        field: 'grantTypes',
        message: `${unknown} is not a grant type of this server (${GRANT_TYPES.join(', ')})`,
      })
    else if (strings(values.grantTypes).length === 0)
      details.push({ field: 'grantTypes', message: 'must name at least one grant type' })
  }
  if (values.scopes !== undefined) {
    const unknown = strings(values.scopes).find((s) => !schema.scopes.includes(s))
    if (unknown !== undefined)
      details.push({ field: 'scopes', message: `${unknown} is not a scope of this server` })
    else if (strings(values.scopes).length === 0)
      details.push({ field: 'scopes', message: 'must name at least one scope' })
  }
  for (const [index, uri] of strings(values.redirectUris).entries()) {
    const problem = redirectUriProblem(uri)
    if (problem) details.push({ field: `redirectUris[${index}]`, message: problem })
  }
}

/** A whole client's values against one another: what each grant needs, and what a public client may not use. */
function checkTogether(client: Values, details: ErrorDetail[]): void {
  const grants = strings(client.grantTypes)
  if (client.public === true && grants.includes('client_credentials'))
    details.push({
      field: 'grantTypes',
      message: 'client_credentials needs a confidential client (public is true)',
    })
  if (grants.includes('authorization_code') && strings(client.redirectUris).length === 0)
    details.push({
      field: 'redirectUris',
      message: 'must name at least one URI for the authorization_code grant',
    })
}

function refuse(details: ErrorDetail[]): void {
  if (details.length > 0) throw validationError(details)
}

/** 409 for a change or an action on a revoked client: it stays as it was revoked, and may be deleted. */
function unlessRevoked(before: Entity, what: string): void {
  if (before.revokedAt === null || before.revokedAt === undefined) return
  throw conflict(`This OAuth client was revoked; it cannot ${what}. Delete it, or create another.`, [
    { field: 'revokedAt', message: `is ${String(before.revokedAt)}; ${what} needs a live client` },
  ])
}

async function reloaded(ctx: EngineContext, id: string): Promise<Entity> {
  const after = await ctx.store.records.find(oauthClients, id)
  if (!after) throw new Error(`the OAuth client ${id} vanished inside its own transaction`)
  return after.entity
}

/**
 * What OAuth clients add to the engine's generic path (docs/oauth.md, "OAuth clients as a
 * resource"): the defaults and checks of grant types, redirect URIs and scopes; the secret made
 * at the create of a confidential client; no change to a revoked one; and the actions
 * `rotate-secret` and `revoke`, which go through the same store calls as `api-server client
 * revoke`, so a revocation reaches every replica as that command's does.
 */
export function oauthClientHooks(): [string, ResourceHooks] {
  return [
    oauthClients.name,
    {
      complete: (schema, values, mode) => {
        const details: ErrorDetail[] = []
        if (mode !== 'patch') {
          values.grantTypes ??= defaultGrantTypes(values.public === true)
          values.scopes ??= [...schema.scopes]
        }
        checkEach(schema, values, details)
        if (mode !== 'patch' && details.length === 0) checkTogether(values, details)
        refuse(details)
      },
      changing: (before, values) => {
        unlessRevoked(before, 'change')
        if (values.public !== undefined && values.public !== before.public)
          refuse([{ field: 'public', message: `is ${String(before.public)} and is set on create only` }])
        // A change of a name alone leaves alone what `client create` once allowed (a public client
        // without redirect URIs); a change of the grants or addresses must make a usable whole.
        if (values.grantTypes !== undefined || values.redirectUris !== undefined) {
          const details: ErrorDetail[] = []
          checkTogether({ ...before, ...values }, details)
          refuse(details)
        }
      },
      created: async (ctx, _principal, entity, now) => {
        if (entity.public === true) return {}
        const secret = await ctx.store.clients.renewSecret(entity.id as string, now)
        return secret === null ? {} : { secret }
      },
      actions: {
        'rotate-secret': async (ctx, _principal, before, now) => {
          unlessRevoked(before, 'rotate-secret')
          if (before.public === true)
            throw conflict('A public client has no secret to rotate.', [
              { field: 'public', message: 'is true; rotate-secret needs a confidential client' },
            ])
          const secret = await ctx.store.clients.renewSecret(before.id as string, now)
          if (secret === null) throw new Error('a live confidential client took no new secret')
          return { entity: await reloaded(ctx, before.id as string), revealed: { secret } }
        },
        revoke: async (ctx, _principal, before, now) => {
          unlessRevoked(before, 'revoke')
          // The transaction holds the record: a concurrent revoke waits, then finds it revoked above.
          if (!(await ctx.store.clients.revoke(before.id as string, now)))
            throw new Error('a live OAuth client was not revoked')
          return { entity: await reloaded(ctx, before.id as string) }
        },
      },
    },
  ]
}
