import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAdmin, runOk } from './run.ts'

let dir: string
let db: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-admin-errors-'))
  db = join(dir, 'admin.db')
  await runOk(['org', 'create', '--name', 'Acme'], db)
  await runOk(
    [
      'user',
      'create',
      '--org',
      'Acme',
      '--email',
      'ann@acme.example',
      '--name',
      'Ann',
      '--password',
      'long-enough',
    ],
    db,
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Rows an admin command could have added. */
function rowCount(): number {
  const conn = new Database(db, { readonly: true })
  try {
    const tables = ['orgs', 'users', 'oauth_clients', 'signing_keys', 'events']
    return tables.reduce(
      (n, t) => n + (conn.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      0,
    )
  } finally {
    conn.close()
  }
}

/** Arguments written as one line, plus any that contain spaces. */
const cmd = (line: string, ...more: string[]) => [...line.split(' '), ...more]
const USER = 'user create --org Acme --name Eve --email eve@acme.example'
const CLIENT = 'client create --name C --org Acme'

// Exit 2 for what the command line itself gets wrong (usage), 1 for what the data rules refuse.
const cases: [string, string[], number, RegExp][] = [
  ['org create without --name', cmd('org create'), 2, /--name is required/],
  ['org create with --name and no value', cmd('org create --name'), 2, /--name/],
  ['org create with a name taken', cmd('org create --name Acme'), 2, /exists already/],
  ['user create without --password', cmd(USER), 2, /--password is required/],
  [
    'user create without --email',
    cmd('user create --org Acme --name E --password long-enough'),
    2,
    /--email/,
  ],
  [
    'user create in an unknown organization',
    cmd(`${USER} --password long-enough`.replace('Acme', 'Nope')),
    2,
    /no organization "Nope"/,
  ],
  [
    'user create with a bad role',
    cmd(`${USER} --password long-enough --role boss`),
    2,
    /role must be one of/,
  ],
  ['user create with a short password', cmd(`${USER} --password short`), 2, /at least 8 characters/],
  [
    'user create with a bad e-mail address',
    cmd('user create --org Acme --name E --email nope --password long-enough'),
    2,
    /email/,
  ],
  [
    'user create with an e-mail taken in the organization (any case)',
    cmd('user create --org Acme --name A2 --email ANN@acme.example --password long-enough'),
    2,
    /email is already taken/,
  ],
  ['client create without --name', cmd('client create --org Acme'), 2, /--name is required/],
  ['client create without --org', cmd('client create --name C'), 2, /--org is required/],
  [
    'client create in an unknown organization',
    cmd('client create --name C --org Nope'),
    2,
    /no organization "Nope"/,
  ],
  [
    'client create with an unknown scope',
    cmd(`${CLIENT} --scope`, 'read:orders read:secrets'),
    2,
    /unknown scope read:secrets/,
  ],
  [
    'client create with an unknown grant type',
    cmd(`${CLIENT} --grant-types client_credentials,password`),
    2,
    /unknown grant type password/,
  ],
  [
    'client create with a relative redirect URI',
    cmd(`${CLIENT} --redirect-uri /callback`),
    2,
    /--redirect-uri/,
  ],
  [
    'client create with a redirect URI fragment',
    cmd(`${CLIENT} --redirect-uri https://a.example/cb#x`),
    2,
    /--redirect-uri/,
  ],
  [
    'a public client with client_credentials',
    cmd(`${CLIENT} --public --grant-types client_credentials`),
    2,
    /public client/,
  ],
  ['an unknown command', cmd('frobnicate'), 2, /unknown command "frobnicate"/],
  ['an unknown action', cmd('keys delete'), 2, /unknown action "keys delete"/],
  ['an unknown option', cmd('org create --name X --colour red'), 2, /--colour/],
]

describe('api-server with bad input', () => {
  it.each(cases)(
    'rejects %s with its exit status, a one-line reason and no change',
    async (_, args, status, reason) => {
      const before = rowCount()
      const run = await runAdmin(args, db)
      expect(run.status).toBe(status)
      expect(run.stdout).toBe('')
      expect(run.stderr).toMatch(/^api-server: [^\n]+\n$/)
      expect(run.stderr).toMatch(reason)
      expect(rowCount()).toBe(before)
    },
  )
})
