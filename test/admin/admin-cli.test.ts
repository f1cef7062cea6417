import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { databaseBytes, runOk } from './run.ts'

let dir: string
let db: string
let orgId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-admin-'))
  db = join(dir, 'admin.db')
  orgId = JSON.parse(await runOk(['org', 'create', '--name', 'Acme', '--json'], db)).id
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Reads the database the commands wrote, through a connection of its own. */
function query<T>(sql: string, ...params: string[]): T[] {
  const conn = new Database(db, { readonly: true })
  try {
    return conn.query(sql).all(...params) as T[]
  } finally {
    conn.close()
  }
}

describe('api-server migrate', () => {
  it("prints the service's version and the schema's, as text and as JSON", async () => {
    const text = await runOk(['migrate'], db)
    const [recorded] = query<{ version: number; hash: string }>(
      'SELECT version, hash FROM schema_versions ORDER BY version DESC LIMIT 1',
    )
    expect(recorded!.hash).toMatch(/^[0-9a-f]{64}$/)
    const { version, schemaVersion, schemaHash } = JSON.parse(await runOk(['migrate', '--json'], db))
    expect(Number.isInteger(version) && version > 0).toBe(true)
    // A second migrate records nothing new: both print the schema the database holds.
    expect({ schemaVersion, schemaHash }).toEqual({
      schemaVersion: recorded!.version,
      schemaHash: recorded!.hash,
    })
    expect(text).toBe(
      `database at service version ${version}; schema version ${recorded!.version} (sha256 ${recorded!.hash.slice(0, 12)}…)\n`,
    )
  })

  it('leaves exactly one public api-cli client, with no secret, however often it runs', async () => {
    await runOk(['migrate'], db)
    const rows = query<{ public: number; secret_hash: string | null; grant_types: string }>(
      'SELECT public, secret_hash, grant_types FROM oauth_clients WHERE id = ?',
      CLI_CLIENT_ID,
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]!.public).toBe(1)
    expect(rows[0]!.secret_hash).toBeNull()
    expect(JSON.parse(rows[0]!.grant_types)).toContain('urn:ietf:params:oauth:grant-type:device_code')
  })
})

describe('api-server org create', () => {
  it('prints {"id"} with --json and the id in words without', async () => {
    const { id } = JSON.parse(await runOk(['org', 'create', '--name', 'Initech', '--json'], db))
    expect(id).toMatch(/^org_[0-7][0-9a-z]{25}$/)
    expect(query('SELECT id FROM orgs WHERE name = ?', 'Initech')).toEqual([{ id }])
    const text = await runOk(['org', 'create', '--name', 'Umbrella'], db)
    const [row] = query<{ id: string }>('SELECT id FROM orgs WHERE name = ?', 'Umbrella')
    expect(text).toBe(`created organization Umbrella: ${row!.id}\n`)
  })

  it('keeps a number-like name as typed', async () => {
    const { id } = JSON.parse(await runOk(['org', 'create', '--name', '007', '--json'], db))
    expect(query('SELECT name FROM orgs WHERE id = ?', id)).toEqual([{ name: '007' }])
  })
})

describe('api-server user create', () => {
  const password = 'correct horse battery staple'
  let userId: string

  beforeAll(async () => {
    const args = ['--email', 'ann@acme.example', '--name', 'Ann', '--role', 'admin', '--password', password]
    userId = JSON.parse(await runOk(['user', 'create', '--org', 'Acme', ...args, '--json'], db)).id
  })

  it('creates a user in the organization named by --org', () => {
    expect(userId).toMatch(/^usr_/)
    const rows = query('SELECT org_id, email, name, role FROM users WHERE id = ?', userId)
    expect(rows).toEqual([{ org_id: orgId, email: 'ann@acme.example', name: 'Ann', role: 'admin' }])
  })

  it('stores the password as an argon2id hash that verifies', async () => {
    const [row] = query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', userId)
    expect(row!.password_hash).toStartWith('$argon2id$')
    expect(await Bun.password.verify(password, row!.password_hash)).toBe(true)
  })

  it('never writes the password in plain text into the database file', () => {
    expect(databaseBytes(db).includes(password)).toBe(false)
  })

  it('accepts the organization id, prints the id in words, and defaults the role to member', async () => {
    const args = ['--org', orgId, '--email', 'mo@acme.example', '--name', 'Mo', '--password', 'pass-word-1']
    const text = await runOk(['user', 'create', ...args], db)
    const [row] = query<{ id: string; role: string }>(
      'SELECT id, role FROM users WHERE email = ?',
      'mo@acme.example',
    )
    expect(text).toBe(`created user mo@acme.example: ${row!.id}\n`)
    expect(row!.role).toBe('member')
  })

  it('keeps a digits-only password as typed, leading zero included', async () => {
    const args = ['--org', 'Acme', '--email', 'zed@acme.example', '--name', 'Zed', '--password', '0123456789']
    const { id } = JSON.parse(await runOk(['user', 'create', ...args, '--json'], db))
    const [row] = query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', id)
    expect(await Bun.password.verify('0123456789', row!.password_hash)).toBe(true)
  })

  it('allows the same e-mail address in another organization', async () => {
    await runOk(['org', 'create', '--name', 'Globex'], db)
    const args = ['--org', 'Globex', '--email', 'ann@acme.example', '--name', 'Ann', '--password', password]
    expect(JSON.parse(await runOk(['user', 'create', ...args, '--json'], db)).id).toMatch(/^usr_/)
  })
})

describe('api-server client create', () => {
  it('prints client_id and client_secret for a confidential client and stores only a hash', async () => {
    const out = await runOk(
      [
        'client',
        'create',
        '--name',
        'Billing',
        '--org',
        'Acme',
        '--scope',
        'read:orders write:orders',
        '--json',
      ],
      db,
    )
    const created = JSON.parse(out) as { client_id: string; client_secret: string }
    expect(Object.keys(created).sort()).toEqual(['client_id', 'client_secret'])
    const [row] = query<{
      org_id: string
      secret_hash: string
      scopes: string
      grant_types: string
      public: number
    }>(
      'SELECT org_id, secret_hash, scopes, grant_types, public FROM oauth_clients WHERE id = ?',
      created.client_id,
    )
    expect(row).toMatchObject({ org_id: orgId, public: 0 })
    expect(JSON.parse(row!.scopes)).toEqual(['read:orders', 'write:orders'])
    expect(JSON.parse(row!.grant_types)).toEqual(['client_credentials'])
    expect(row!.secret_hash).not.toContain(created.client_secret)
    expect(databaseBytes(db).includes(created.client_secret)).toBe(false)
  })

  it('prints no secret for a public client and keeps its grant types and redirect URIs', async () => {
    const out = await runOk(
      [
        'client',
        'create',
        '--name',
        'SPA',
        '--org',
        'Acme',
        '--public',
        '--redirect-uri',
        'https://app.example/cb',
        '--redirect-uri',
        'http://127.0.0.1/callback',
        '--grant-types',
        'authorization_code,refresh_token',
        '--json',
      ],
      db,
    )
    const created = JSON.parse(out)
    expect(Object.keys(created)).toEqual(['client_id'])
    const [row] = query<{ secret_hash: null; public: number; redirect_uris: string; grant_types: string }>(
      'SELECT secret_hash, public, redirect_uris, grant_types FROM oauth_clients WHERE id = ?',
      created.client_id,
    )
    expect(row!.secret_hash).toBeNull()
    expect(row!.public).toBe(1)
    expect(JSON.parse(row!.redirect_uris)).toEqual(['https://app.example/cb', 'http://127.0.0.1/callback'])
    expect(JSON.parse(row!.grant_types)).toEqual(['authorization_code', 'refresh_token'])
  })

  it('shows the secret once in words without --json', async () => {
    const text = await runOk(['client', 'create', '--name', 'Ops', '--org', 'Acme'], db)
    expect(text).toMatch(/client_id: +clt_\w+\nclient_secret: cs_[\w-]+ +\(shown once/)
  })
})

describe('api-server keys rotate', () => {
  it('adds a signing key, retires the previous one and prints the new kid', async () => {
    await runOk(['keys', 'rotate'], db)
    const { kid } = JSON.parse(await runOk(['keys', 'rotate', '--json'], db))
    const live = query<{ kid: string }>('SELECT kid FROM signing_keys WHERE retired_at IS NULL')
    expect(live).toEqual([{ kid }])
    expect(query('SELECT kid FROM signing_keys').length).toBeGreaterThanOrEqual(2)
  })
})
