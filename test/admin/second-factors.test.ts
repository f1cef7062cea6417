/**
 * `api-server org update ORG --require-2fa` and `api-server user reset-2fa` (docs/operations.md,
 * "Admin commands"), through the real command as a subprocess on a real SQLite file, or on
 * PostgreSQL under `npm run test:postgres`.
 */

import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from '../support/backend.ts'
import { adminDatabase, runAdmin, runOk } from './run.ts'

let dir: string
let db: string
let sql: TestSql
let acme: string

const json = async (args: string[]) =>
  JSON.parse(await runOk([...args, '--json'], db)) as Record<string, unknown>
const policyOf = async (orgId: string) =>
  (await sql.get<{ require_2fa: string }>('SELECT require_2fa FROM orgs WHERE id = ?', orgId))!.require_2fa

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-2fa-'))
  db = await adminDatabase(dir, 'second-factors')
  acme = (await json(['org', 'create', '--name', 'Acme'])).id as string
  sql = onPostgres ? postgresTestSql(db) : sqliteTestSql(new Database(db))
})
afterAll(async () => {
  await sql?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('api-server org update ORG --require-2fa', () => {
  it.each([
    ['admins', 'Acme (ID) now requires a second factor of its admins'],
    ['all', 'Acme (ID) now requires a second factor of every user'],
    ['none', 'Acme (ID) now requires no second factor'],
  ])('sets %s, says so, and org list shows it', async (policy, sentence) => {
    const run = await runAdmin(['org', 'update', 'acme', '--require-2fa', policy], db)
    expect(run).toEqual({ status: 0, stdout: `${sentence.replace('ID', acme)}\n`, stderr: '' })
    expect(await policyOf(acme)).toBe(policy)
    expect(await json(['org', 'list'])).toEqual({
      data: [{ id: acme, name: 'Acme', require2fa: policy, createdAt: expect.any(String) }],
    })
    const table = (await runOk(['org', 'list'], db)).split('\n')
    expect(table[1]!.split(/ {2,}/).slice(0, 3)).toEqual([acme, 'Acme', policy])
  })

  it('answers the organization with --json', async () => {
    expect(await json(['org', 'update', acme, '--require-2fa', 'admins'])).toEqual({
      id: acme,
      name: 'Acme',
      require2fa: 'admins',
    })
  })

  it.each([
    [
      ['org', 'update', 'Acme', '--require-2fa', 'everyone'],
      'api-server: --require-2fa must be one of: admins, all, none (got "everyone")\n',
    ],
    [['org', 'update', 'Acme'], 'api-server: --require-2fa is required (one of: admins, all, none)\n'],
    [
      ['org', 'update', '--require-2fa', 'all'],
      'api-server: org update needs the organization (org update ORG)\n',
    ],
    [
      ['org', 'update', 'Initrode', '--require-2fa', 'all'],
      'api-server: no organization "Initrode" (give its id or exact name)\n',
    ],
  ])('refuses %j with exit 2 and changes nothing', async (args, stderr) => {
    await runOk(['org', 'update', 'Acme', '--require-2fa', 'admins'], db)
    expect(await runAdmin(args, db)).toEqual({ status: 2, stdout: '', stderr })
    expect(await policyOf(acme)).toBe('admins')
  })
})

describe('api-server user reset-2fa', () => {
  let userId: string
  const reset = (email = 'ann@acme.example') =>
    runAdmin(['user', 'reset-2fa', '--org', 'Acme', '--email', email], db)
  const count = async (table: string) =>
    Number(
      (await sql.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, userId))!
        .n,
    )

  beforeAll(async () => {
    userId = (
      await json([
        'user',
        'create',
        '--org',
        'Acme',
        '--email',
        'ann@acme.example',
        '--name',
        'Ann',
        '--role',
        'admin',
        '--password',
        'long enough',
      ])
    ).id as string
  })

  it('removes the authenticator app, the recovery codes and the passkeys, with a user.mfa_reset event', async () => {
    const now = new Date().toISOString()
    await sql.run(
      'INSERT INTO user_totp (user_id, sealed_secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, 0, ?)',
      userId,
      'sealed',
      now,
      now,
    )
    for (const hash of ['h1', 'h2', 'h3'])
      await sql.run(
        'INSERT INTO user_recovery_codes (user_id, code_hash, used_at, created_at) VALUES (?, ?, NULL, ?)',
        userId,
        hash,
        now,
      )
    await sql.run(
      `INSERT INTO user_passkeys (id, user_id, name, algorithm, public_key, sign_count, created_at, last_used_at)
       VALUES (?, ?, ?, -7, ?, 0, ?, NULL)`,
      'cred-1',
      userId,
      'Laptop',
      'pk',
      now,
    )
    const listed = (await json(['user', 'list', '--org', 'Acme'])).data as Record<string, unknown>[]
    expect(listed.find((u) => u.id === userId)?.hasSecondFactor).toBe(true)
    expect(await runOk(['user', 'list', '--org', 'Acme'], db)).toMatch(
      /ann@acme\.example .* totp \+ 1 passkey /,
    )

    expect(await reset()).toEqual({
      status: 0,
      stdout: `removed the authenticator app, 1 passkey and 3 recovery codes of ann@acme.example (${userId}); they sign in with their password alone until they enrol again\n`,
      stderr: '',
    })
    for (const table of ['user_totp', 'user_recovery_codes', 'user_passkeys'])
      expect(await count(table)).toBe(0)
    const events = await sql.all<{ type: string; actor_type: string; actor_id: string; data: string }>(
      "SELECT type, actor_type, actor_id, data FROM events WHERE resource_id = ? AND type = 'user.mfa_reset'",
      userId,
    )
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ actor_type: 'system', actor_id: 'api-server' })
    expect(JSON.parse(events[0]!.data)).toEqual({
      id: userId,
      email: 'ann@acme.example',
      totp: true,
      passkeys: 1,
      recoveryCodes: 3,
    })
    const after = (await json(['user', 'list', '--org', 'Acme'])).data as Record<string, unknown>[]
    expect(after.find((u) => u.id === userId)?.hasSecondFactor).toBe(false)
  })

  it('tells a user with nothing to reset so, exit 0, and appends no event', async () => {
    const before = await sql.count('events')
    expect(await reset()).toEqual({
      status: 0,
      stdout: `ann@acme.example has no second factor: nothing to reset (${userId})\n`,
      stderr: '',
    })
    expect(await sql.count('events')).toBe(before)
    expect(
      JSON.parse(
        await runOk(['user', 'reset-2fa', '--org', 'Acme', '--email', 'ANN@acme.example', '--json'], db),
      ),
    ).toEqual({
      id: userId,
      email: 'ann@acme.example',
      removed: { totp: false, passkeys: 0, recoveryCodes: 0 },
    })
  })

  it.each([
    [['--org', 'Acme'], 'api-server: --email is required\n'],
    [['--email', 'ann@acme.example'], 'api-server: --org is required\n'],
    [
      ['--org', 'Acme', '--email', 'nobody@acme.example'],
      'api-server: no user nobody@acme.example in Acme (user list --org ORG shows them)\n',
    ],
    [
      ['--org', 'Initrode', '--email', 'ann@acme.example'],
      'api-server: no organization "Initrode" (give its id or exact name)\n',
    ],
  ])('refuses %j with exit 2', async (args, stderr) => {
    expect(await runAdmin(['user', 'reset-2fa', ...args], db)).toEqual({ status: 2, stdout: '', stderr })
  })
})
