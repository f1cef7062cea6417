import type { Tx } from '../store/store.ts'
import type { ListedClient } from '../store/types.ts'
import { formatTable, shortTime } from './table.ts'
import { requireOrg } from './users.ts'

/**
 * What `org list`, `user list` and `client list` print: `{"data": [...]}` with `--json` (one
 * object, as every admin command prints, shaped like the API's lists), a table otherwise.
 */
export interface Listing {
  json: { data: Record<string, unknown>[] }
  text: string
}

export async function listOrgs(store: Tx): Promise<Listing> {
  const orgs = await store.orgs.list()
  // A few organizations at most: one look-up each keeps the store's listing as it is.
  const policies = await Promise.all(orgs.map((org) => store.signIn.policyOf(org.id)))
  return {
    json: {
      data: orgs.map((org, i) => ({
        id: org.id,
        name: org.name,
        require2fa: policies[i],
        createdAt: org.createdAt,
      })),
    },
    text:
      orgs.length === 0
        ? 'no organizations yet'
        : formatTable(
            ['ID', 'NAME', 'REQUIRE 2FA', 'CREATED'],
            orgs.map((org, i) => [org.id, org.name, policies[i]!, shortTime(org.createdAt)]),
          ),
  }
}

export async function listUsers(store: Tx, orgRef: string): Promise<Listing> {
  const org = await requireOrg(store, orgRef)
  const users = await store.users.list(org.id)
  const factors = await Promise.all(users.map((user) => store.signIn.factorsOf(user.id)))
  // Recovery codes alone are no second factor: they stand in for one that was lost.
  const hasSecondFactor = (i: number) => factors[i]!.totp || factors[i]!.passkeys > 0
  return {
    json: { data: users.map((user, i) => ({ ...user, hasSecondFactor: hasSecondFactor(i) })) },
    text:
      users.length === 0
        ? `no users in ${org.name}`
        : formatTable(
            ['ID', 'EMAIL', 'NAME', 'ROLE', 'PASSWORD', '2FA', 'CREATED'],
            users.map((u, i) => [
              u.id,
              u.email,
              u.name,
              u.role,
              u.hasPassword ? 'set' : 'none',
              secondFactorCell(factors[i]!),
              shortTime(u.createdAt),
            ]),
          ),
  }
}

/** A user's second factors in a table cell: `totp`, `2 passkeys`, both, or `none`. */
function secondFactorCell(factors: Awaited<ReturnType<Tx['signIn']['factorsOf']>>): string {
  const kinds = [
    ...(factors.totp ? ['totp'] : []),
    ...(factors.passkeys > 0 ? [`${factors.passkeys} passkey${factors.passkeys === 1 ? '' : 's'}`] : []),
  ]
  return kinds.join(' + ') || 'none'
}

/** A client's scopes in a table cell: all of them, all but a few, or the few it has. */
function scopeCell(all: readonly string[], scopes: readonly string[]): string {
  const missing = all.filter((scope) => !scopes.includes(scope))
  if (missing.length === 0) return 'all'
  if (scopes.length <= 3) return scopes.join(' ') || 'none'
  if (missing.length <= 3) return `all but ${missing.join(' ')}`
  return `${scopes.length} of ${all.length} (--json lists them)`
}

/** Never a secret: only its hash is stored, and the listing does not show that either. */
export async function listClients(store: Tx, orgRef: string): Promise<Listing> {
  const org = await requireOrg(store, orgRef)
  const clients = await store.clients.list(org.id)
  const status = (client: ListedClient) =>
    client.revokedAt === null ? 'live' : `revoked ${shortTime(client.revokedAt)}`
  return {
    json: {
      data: clients.map((client) => ({
        client_id: client.id,
        name: client.name,
        public: client.public,
        grantTypes: client.grantTypes,
        redirectUris: client.redirectUris,
        scopes: client.scope,
        createdAt: client.createdAt,
        revokedAt: client.revokedAt,
      })),
    },
    text:
      clients.length === 0
        ? `no clients in ${org.name}`
        : formatTable(
            ['CLIENT_ID', 'NAME', 'TYPE', 'GRANT TYPES', 'SCOPES', 'STATUS', 'REDIRECT URIS'],
            clients.map((c) => [
              c.id,
              c.name,
              c.public ? 'public' : 'confidential',
              c.grantTypes.join(','),
              scopeCell(store.schema.scopes, c.scope),
              status(c),
              c.redirectUris.join(' '),
            ]),
          ),
  }
}
