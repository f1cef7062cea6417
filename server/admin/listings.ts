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
  return {
    json: { data: orgs.map((org) => ({ id: org.id, name: org.name, createdAt: org.createdAt })) },
    text:
      orgs.length === 0
        ? 'no organizations yet'
        : formatTable(
            ['ID', 'NAME', 'CREATED'],
            orgs.map((org) => [org.id, org.name, shortTime(org.createdAt)]),
          ),
  }
}

export async function listUsers(store: Tx, orgRef: string): Promise<Listing> {
  const org = await requireOrg(store, orgRef)
  const users = await store.users.list(org.id)
  return {
    json: { data: users.map((user) => ({ ...user })) },
    text:
      users.length === 0
        ? `no users in ${org.name}`
        : formatTable(
            ['ID', 'EMAIL', 'NAME', 'ROLE', 'PASSWORD', 'CREATED'],
            users.map((u) => [
              u.id,
              u.email,
              u.name,
              u.role,
              u.hasPassword ? 'set' : 'none',
              shortTime(u.createdAt),
            ]),
          ),
  }
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
