import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { constantTimeEqual, sha256Hex } from '../../../shared/crypto.ts'
import { newId } from '../../../shared/ids.ts'
import { ALL_SCOPES } from '../../../shared/resources/index.ts'
import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { CLI_CLIENT_ID, type NewClient, type OAuthClient } from '../types.ts'

interface ClientRow {
  id: string
  org_id: string | null
  name: string
  secret_hash: string | null
  public: number | boolean
  redirect_uris: string
  grant_types: string
  scope: string
}

// Client secrets are 256 random bits, so a fast hash is enough at rest (unlike passwords, they
// cannot be guessed from a dictionary); SHA-256 keeps token requests cheap.
const hashSecret = (secret: string) => sha256Hex(secret)

export async function createClient(
  x: Executor,
  input: NewClient,
): Promise<{ client: OAuthClient; secret: string | null }> {
  const id = newId('clt')
  const secret = input.public
    ? null
    : `cs_${encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)))}`
  const grantTypes =
    input.grantTypes ?? (input.public ? ['authorization_code', 'refresh_token'] : ['client_credentials'])
  const now = isoNow()
  const client: OAuthClient = {
    id,
    orgId: input.orgId,
    name: input.name,
    public: input.public,
    redirectUris: input.redirectUris ?? [],
    grantTypes,
    scope: input.scope ?? [...ALL_SCOPES],
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
  await x.run(
    `INSERT INTO oauth_clients (id, org_id, name, secret_hash, public, redirect_uris, grant_types, scope, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, public = excluded.public,
       redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types, scope = excluded.scope,
       updated_at = excluded.updated_at`,
    [
      c.id,
      c.orgId,
      c.name,
      secretHash,
      x.dialect.nativeBooleans ? c.public : c.public ? 1 : 0,
      JSON.stringify(c.redirectUris),
      JSON.stringify(c.grantTypes),
      c.scope.join(' '),
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
    scope: row.scope.split(' ').filter(Boolean),
  }
}

export async function findClient(x: Executor, id: string): Promise<OAuthClient | null> {
  const row = (await x.get('SELECT * FROM oauth_clients WHERE id = ?', [id])) as ClientRow | null
  return row ? fromRow(row) : null
}

/** The client when `secret` is its secret; null otherwise (also for public clients). */
export async function authenticateClient(
  x: Executor,
  id: string,
  secret: string,
): Promise<OAuthClient | null> {
  const row = (await x.get('SELECT * FROM oauth_clients WHERE id = ?', [id])) as ClientRow | null
  if (!row || row.secret_hash === null) return null
  const given = new TextEncoder().encode(hashSecret(secret))
  const stored = new TextEncoder().encode(row.secret_hash)
  return constantTimeEqual(given, stored) ? fromRow(row) : null
}

/** Creates or refreshes the CLI's public client (device and authorization-code grants, loopback redirects). */
export async function ensureCliClient(x: Executor): Promise<void> {
  const client: OAuthClient = {
    id: CLI_CLIENT_ID,
    orgId: null,
    name: 'api command-line client',
    public: true,
    // RFC 8252 §7.3: any port on the loopback address is accepted for this redirect.
    redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    scope: [...ALL_SCOPES],
  }
  await insertClient(x, client, null, isoNow())
}
