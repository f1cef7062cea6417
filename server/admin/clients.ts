import type { Schema } from '../../shared/schema/schema.ts'
import type { Tx } from '../store/store.ts'
import { CLI_CLIENT_ID, type ListedClient } from '../store/types.ts'
import { AdminInputError } from './users.ts'

/** Scopes as `--scope` takes them (space- or comma-separated); an unknown one is named. */
export function parseScopes(schema: Schema, words: readonly string[]): string[] {
  const unknown = words.find((scope) => !schema.scopes.includes(scope))
  if (unknown !== undefined) throw new AdminInputError(`unknown scope ${unknown}`)
  return [...new Set(words)]
}

/** The client an admin command changes: any but the CLI's own, which every migration rewrites. */
async function changeable(store: Tx, id: string): Promise<ListedClient> {
  if (id === CLI_CLIENT_ID)
    throw new AdminInputError(
      `${CLI_CLIENT_ID} is the command-line client's own; every migration sets it anew`,
    )
  const client = await store.clients.describe(id)
  if (!client) throw new AdminInputError(`no client ${JSON.stringify(id)} (client list --org ORG shows them)`)
  return client
}

/** `client update CLIENT --scope "..."`: the scopes it may ask for from now on. */
export async function updateClientScope(store: Tx, id: string, scope: string[]): Promise<ListedClient> {
  const client = await changeable(store, id)
  await store.clients.setScope(client.id, scope)
  return { ...client, scope }
}

/**
 * `client revoke CLIENT`: the client is disabled for good, and every token it holds stops working
 * (docs/operations.md, "Admin commands"). Revoking a revoked client changes nothing.
 */
export async function revokeClient(
  store: Tx,
  id: string,
): Promise<{ client: ListedClient; already: boolean }> {
  const client = await changeable(store, id)
  const revoked = await store.clients.revoke(client.id)
  return { client, already: !revoked }
}
