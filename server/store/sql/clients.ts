import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { constantTimeEqual, sha256Hex } from '../../../shared/crypto.ts'
import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import {
  CLI_CLIENT_ID,
  CONSOLE_CLIENT_ID,
  defaultGrantTypes,
  type ListedClient,
  type NewClient,
  type OAuthClient,
} from '../types.ts'

interface ClientRow {
  id: string
  org_id: string | null
  name: string
  secret_hash: string | null
  public: number | boolean
  redirect_uris: string
  grant_types: string
  scopes: string
  created_at: string
  revoked_at: string | null
}

// Client secrets are 256 random bits, so a fast hash is enough at rest (unlike passwords, they
// cannot be guessed from a dictionary); SHA-256 keeps token requests cheap.
const hashSecret = (secret: string) => sha256Hex(secret)

const makeSecret = () => `cs_${encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)))}`

export async function createClient(
  x: Executor,
  input: NewClient,
  /** What a client without `input.scope` gets: every scope of the schema. */
  scopes: readonly string[],
): Promise<{ client: OAuthClient; secret: string | null }> {
  const id = newId('clt')
  const secret = input.public ? null : makeSecret()
  const grantTypes = input.grantTypes ?? defaultGrantTypes(input.public)
  const now = isoNow()
  const client: OAuthClient = {
    id,
    orgId: input.orgId,
    name: input.name,
    public: input.public,
    redirectUris: input.redirectUris ?? [],
    grantTypes,
    scope: input.scope ?? [...scopes],
  }
  await insertClient(x, client, secret === null ? null : hashSecret(secret), now)
  return { client, secret }
}

async function insertClient(
  x: Executor,
  c: OAuthClient,
  secretHash: string | null,
  now: string,
): Promise<void> {
  // An existing client that would not change is left alone: every start registers the CLI's
  // client, and a start that finds the database as it needs it writes nothing.
  await x.run(
    `INSERT INTO oauth_clients (id, org_id, name, secret_hash, public, redirect_uris, grant_types, scopes, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, public = excluded.public,
       redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types, scopes = excluded.scopes,
       updated_at = excluded.updated_at
     WHERE oauth_clients.name <> excluded.name OR oauth_clients.public <> excluded.public
       OR oauth_clients.redirect_uris <> excluded.redirect_uris OR oauth_clients.grant_types <> excluded.grant_types
       OR oauth_clients.scopes <> excluded.scopes`,
    [
      c.id,
      c.orgId,
      c.name,
      secretHash,
      x.dialect.nativeBooleans ? c.public : c.public ? 1 : 0,
      JSON.stringify(c.redirectUris),
      JSON.stringify(c.grantTypes),
      JSON.stringify(c.scope),
      now,
      now,
    ],
  )
}

function fromRow(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    public: row.public === 1 || row.public === true,
    redirectUris: JSON.parse(row.redirect_uris),
    grantTypes: JSON.parse(row.grant_types),
    scope: JSON.parse(row.scopes),
  }
}

/** A live client: a revoked one is no client to the OAuth endpoints (docs/operations.md, "Admin commands"). */
export async function findClient(x: Executor, id: string): Promise<OAuthClient | null> {
  const row = (await x.get('SELECT * FROM oauth_clients WHERE id = ? AND revoked_at IS NULL', [
    id,
  ])) as ClientRow | null
  return row ? fromRow(row) : null
}

/** The client when `secret` is its secret and it is live; null otherwise (also for public clients). */
export async function authenticateClient(
  x: Executor,
  id: string,
  secret: string,
): Promise<OAuthClient | null> {
  const row = (await x.get('SELECT * FROM oauth_clients WHERE id = ? AND revoked_at IS NULL', [
    id,
  ])) as ClientRow | null
  if (!row || row.secret_hash === null) return null
  const given = new TextEncoder().encode(hashSecret(secret))
  const stored = new TextEncoder().encode(row.secret_hash)
  return constantTimeEqual(given, stored) ? fromRow(row) : null
}

/** Creates or refreshes the CLI's public client (device and authorization-code grants, loopback redirects). */
export async function ensureCliClient(x: Executor, scopes: readonly string[]): Promise<void> {
  const client: OAuthClient = {
    id: CLI_CLIENT_ID,
    orgId: null,
    name: 'api command-line client',
    public: true,
    // RFC 8252 §7.3: any port on the loopback address is accepted for this redirect.
    redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    scope: [...scopes],
  }
  await insertClient(x, client, null, isoNow())
}

/**
 * Creates or refreshes the console's public client: its one redirect URI is under the base URL,
 * which is known only once the server listens, so `serve` registers it at each start.
 */
export async function ensureConsoleClient(
  x: Executor,
  baseUrl: string,
  scopes: readonly string[],
): Promise<void> {
  const client: OAuthClient = {
    id: CONSOLE_CLIENT_ID,
    orgId: null,
    name: 'api console',
    public: true,
    redirectUris: [`${baseUrl}/console/callback`],
    grantTypes: ['authorization_code', 'refresh_token'],
    scope: [...scopes],
  }
  await insertClient(x, client, null, isoNow())
}

const listed = (row: ClientRow): ListedClient => ({
  ...fromRow(row),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
})

/** The organization's clients, revoked ones too, oldest first. */
export async function listClients(x: Executor, orgId: string): Promise<ListedClient[]> {
  const rows = (await x.all('SELECT * FROM oauth_clients WHERE org_id = ? ORDER BY created_at, id', [
    orgId,
  ])) as ClientRow[]
  return rows.map(listed)
}

/** A client as stored, revoked or not; null when there is none with this id. */
export async function describeClient(x: Executor, id: string): Promise<ListedClient | null> {
  const row = (await x.get('SELECT * FROM oauth_clients WHERE id = ?', [id])) as ClientRow | null
  return row ? listed(row) : null
}

/** Whether the client is no longer live: revoked, or deleted (its tokens end with it). */
export async function clientRevoked(x: Executor, id: string): Promise<boolean> {
  return (await x.get('SELECT 1 FROM oauth_clients WHERE id = ? AND revoked_at IS NULL', [id])) === null
}

/**
 * A new secret for a live confidential client, replacing its hash (none yet, for one just created
 * through the API): the old secret stops working with this write. Null, and nothing changed, for
 * a public, revoked or unknown client.
 */
export async function renewClientSecret(x: Executor, id: string, now: string): Promise<string | null> {
  const secret = makeSecret()
  const changed = await x.run(
    'UPDATE oauth_clients SET secret_hash = ?, updated_at = ? WHERE id = ? AND NOT public AND revoked_at IS NULL',
    [hashSecret(secret), now, id],
  )
  return changed > 0 ? secret : null
}

/** Replaces the scopes the client may ask for; false when there is no such client. */
export async function setClientScope(x: Executor, id: string, scope: string[]): Promise<boolean> {
  const now = isoNow()
  return (
    (await x.run('UPDATE oauth_clients SET scopes = ?, updated_at = ? WHERE id = ?', [
      JSON.stringify(scope),
      now,
      id,
    ])) > 0
  )
}

/**
 * Revokes a client and, in the same transaction, every grant it holds: its refresh tokens and its
 * users' access tokens (through their grant) stop working, and its client-credentials tokens are
 * refused because their client is (server/auth/current-access.ts). False when it was not live.
 */
export async function revokeClient(x: Executor, id: string, now = isoNow()): Promise<boolean> {
  return x.transaction(async (x) => {
    const revoked = await x.run(
      'UPDATE oauth_clients SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL',
      [now, now, id],
    )
    if (revoked === 0) return false
    await x.run(
      'UPDATE oauth_grants SET revoked_at = ?, updated_at = ? WHERE client_id = ? AND revoked_at IS NULL',
      [now, now, id],
    )
    return true
  })
}
