/**
 * What the operator can see and change with the admin commands (docs/operations.md, "Admin
 * commands"): `org list`, `user list`, `client list` as tables and as `{"data": [...]}`,
 * organization names unique whatever their case, `user set-password` and `client update --scope`.
 * On SQLite, or on PostgreSQL under `npm run test:postgres`.
 */
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exampleSchema } from '../../shared/resources/index.ts'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from '../support/backend.ts'
import { adminDatabase, runAdmin, runOk } from './run.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let dir: string
let db: string
let sql: TestSql
let acme: string

/** `api-server ... --json` on the test database, parsed. */
const json = async (line: string, ...more: string[]) =>
  JSON.parse(await runOk([...line.split(' '), ...more, '--json'], db)) as Record<string, unknown>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-accounts-'))
  db = await adminDatabase(dir, 'accounts')
  acme = (await json('org create --name Acme')).id as string
  sql = onPostgres ? postgresTestSql(db) : sqliteTestSql(new Database(db))
})
afterAll(async () => {
  await sql?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('api-server org create: names are unique whatever their case', () => {
  it.each(['acme', 'ACME', 'aCmE'])(
    'refuses %s after Acme: exit 1, naming the one that exists',
    async (name) => {
      const run = await runAdmin(['org', 'create', '--name', name], db)
      expect(run).toEqual({
        status: 1,
        stdout: '',
        stderr: `api-server: an organization named "${name}" exists already (as "Acme")\n`,
      })
      expect(await sql.count('orgs')).toBe(1)
    },
  )

  it('finds an organization by its name in any case (--org acme)', async () => {
    const listed = await json('user list --org acme')
    expect(listed).toEqual({ data: [] })
  })
})

describe('api-server org list', () => {
  it('prints {"data": [...]} with --json, oldest first, and a table without', async () => {
    const initech = (await json('org create --name Initech')).id as string
    const listed = await json('org list')
    expect(listed.data).toEqual([
      {
        id: acme,
        name: 'Acme',
        require2fa: 'none',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
      { id: initech, name: 'Initech', require2fa: 'none', createdAt: expect.any(String) },
    ])
    const table = (await runOk(['org', 'list'], db)).trimEnd().split('\n')
    expect(table[0]).toMatch(/^ID +NAME +REQUIRE 2FA +CREATED$/)
    expect(table.slice(1).map((line) => line.split(/ {2,}/).slice(0, 2))).toEqual([
      [acme, 'Acme'],
      [initech, 'Initech'],
    ])
  })
})

describe('api-server user list and set-password', () => {
  it('creates a user with the password on standard input (--password-stdin)', async () => {
    const run = await runAdmin(
      [
        'user',
        'create',
        '--org',
        'Acme',
        '--email',
        'bo@acme.example',
        '--name',
        'Bo',
        '--password-stdin',
        '--json',
      ],
      db,
      { stdin: 'a passphrase on stdin\n' },
    )
    expect(run.status).toBe(0)
    const { id } = JSON.parse(run.stdout) as { id: string }
    const row = await sql.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', id)
    expect(await Bun.password.verify('a passphrase on stdin', row!.password_hash)).toBe(true)
    expect(run.stdout + run.stderr).not.toContain('passphrase')
  })

  it('lists the users of an organization with their role and whether they have a password, never its hash', async () => {
    const viewer = (
      await json(
        'user create --org Acme --email vi@acme.example --name Vi --role viewer --password long-enough',
      )
    ).id as string
    const listed = (await json('user list --org Acme')).data as Record<string, unknown>[]
    expect(listed.find((u) => u.id === viewer)).toEqual({
      id: viewer,
      email: 'vi@acme.example',
      name: 'Vi',
      role: 'viewer',
      hasPassword: true,
      hasSecondFactor: false,
      createdAt: expect.any(String),
    })
    expect(JSON.stringify(listed)).not.toContain('argon2')
    const table = await runOk(['user', 'list', '--org', acme], db)
    expect(table).toMatch(/^ID +EMAIL +NAME +ROLE +PASSWORD +2FA +CREATED\n/)
    expect(table).toContain('vi@acme.example')
    expect(table).not.toContain('argon2')
  })

  it('sets a password from standard input, for the e-mail address in any case, and prints it nowhere', async () => {
    const { id } = await json(
      'user create --org Acme --email cy@acme.example --name Cy --password first-password',
    )
    const run = await runAdmin(
      ['user', 'set-password', '--org', 'Acme', '--email', 'CY@acme.example', '--password-stdin'],
      db,
      { stdin: 'second password\n' },
    )
    expect(run).toEqual({ status: 0, stdout: `set the password of cy@acme.example: ${id}\n`, stderr: '' })
    const row = await sql.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', id)
    expect(await Bun.password.verify('second password', row!.password_hash)).toBe(true)
    expect(await Bun.password.verify('first-password', row!.password_hash)).toBe(false)
    // --password as user create takes it, too.
    await runOk(
      ['user', 'set-password', '--org', 'Acme', '--email', 'cy@acme.example', '--password', 'third password'],
      db,
    )
    const after = await sql.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', id)
    expect(await Bun.password.verify('third password', after!.password_hash)).toBe(true)
  })

  it('gives a user created through the API, who had none, a password to log in with', async () => {
    const id = 'usr_01jd3v0m7qf8s9t2w4x6y8z0ab'
    const now = new Date().toISOString()
    await sql.run(
      'INSERT INTO users (id, org_id, name, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      id,
      acme,
      'Api',
      'api@acme.example',
      'member',
      now,
      now,
    )
    const before = ((await json('user list --org Acme')).data as { id: string; hasPassword: boolean }[]).find(
      (u) => u.id === id,
    )
    expect(before?.hasPassword).toBe(false)
    await runOk(
      ['user', 'set-password', '--org', 'Acme', '--email', 'api@acme.example', '--password-stdin'],
      db,
      {
        stdin: 'now I can log in',
      },
    )
    const after = ((await json('user list --org Acme')).data as { id: string; hasPassword: boolean }[]).find(
      (u) => u.id === id,
    )
    expect(after?.hasPassword).toBe(true)
  })
})

describe('api-server client list and client update', () => {
  it('lists the clients of an organization, never a secret', async () => {
    const made = await json('client create --name billing --org Acme')
    const web = await json(
      'client create --name web --org Acme --public --grant-types authorization_code,refresh_token --redirect-uri https://app.example/cb --scope',
      'read:orders read:products',
    )
    const listed = await json('client list --org Acme')
    expect(listed.data).toEqual([
      {
        client_id: made.client_id,
        name: 'billing',
        public: false,
        grantTypes: ['client_credentials'],
        redirectUris: [],
        scopes: SCHEMA.scopes,
        createdAt: expect.any(String),
        revokedAt: null,
      },
      {
        client_id: web.client_id,
        name: 'web',
        public: true,
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: ['https://app.example/cb'],
        scopes: ['read:orders', 'read:products'],
        createdAt: expect.any(String),
        revokedAt: null,
      },
    ])
    const table = await runOk(['client', 'list', '--org', 'Acme'], db)
    expect(table).toMatch(/^CLIENT_ID +NAME +TYPE +GRANT TYPES +SCOPES +STATUS +REDIRECT URIS\n/)
    expect(table).toContain('read:orders read:products')
    for (const text of [JSON.stringify(listed), table]) {
      expect(text).not.toContain(made.client_secret as string)
      expect(text).not.toContain('cs_')
    }
  })

  it('replaces the scopes of a client with --scope, each one checked', async () => {
    const { client_id: id } = await json('client create --name old --org Acme --scope read:orders')
    const updated = await json(`client update ${id} --scope`, 'read:orders write:orders,read:users')
    expect(updated).toEqual({ client_id: id, scopes: ['read:orders', 'write:orders', 'read:users'] })
    const listed = (await json('client list --org Acme')).data as { client_id: string; scopes: string[] }[]
    expect(listed.find((c) => c.client_id === id)?.scopes).toEqual([
      'read:orders',
      'write:orders',
      'read:users',
    ])
    const text = await runOk(['client', 'update', id as string, '--scope', 'read:orders'], db)
    expect(text).toBe(`updated client old (${id}); it may now ask for: read:orders\n`)
  })

  it('lists an organization without clients in words, and as an empty list', async () => {
    await runOk(['org', 'create', '--name', 'Empty'], db)
    expect(await runOk(['client', 'list', '--org', 'Empty'], db)).toBe('no clients in Empty\n')
    expect(await json('client list --org Empty')).toEqual({ data: [] })
  })
})
