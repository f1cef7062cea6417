import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminCommand, runAdmin, runOk } from './run.ts'

let dir: string
let db: string
const readOnlyDirs: string[] = []

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
afterAll(() => {
  // Directories made read-only for a test are made writable again so that they can be removed.
  for (const path of readOnlyDirs) chmodSync(path, 0o755)
  rmSync(dir, { recursive: true, force: true })
})

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

// Exit 2 for what the command line itself gets wrong (usage), 1 for what the database refuses
// (a name or an e-mail address taken).
const cases: [string, string[], number, RegExp][] = [
  ['org create without --name', cmd('org create'), 2, /--name is required/],
  ['org create with --name and no value', cmd('org create --name'), 2, /--name/],
  ['org create with a name taken', cmd('org create --name Acme'), 1, /exists already/],
  [
    'org create with a name taken in another case',
    cmd('org create --name ACME'),
    1,
    /an organization named "ACME" exists already \(as "Acme"\)/,
  ],
  ['user create without --password', cmd(USER), 2, /--password or --password-stdin is required/],
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
    'user create with --password and --password-stdin',
    cmd(`${USER} --password long-enough --password-stdin`),
    2,
    /--password or --password-stdin, not both/,
  ],
  [
    'user create with --password-stdin and nothing on standard input',
    cmd(`${USER} --password-stdin`),
    2,
    /--password-stdin found no password on standard input/,
  ],
  ['user list without --org', cmd('user list'), 2, /--org is required/],
  [
    'user set-password without a password',
    cmd('user set-password --org Acme --email ann@acme.example'),
    2,
    /--password or --password-stdin is required/,
  ],
  [
    'user set-password of a user that does not exist',
    cmd('user set-password --org Acme --email nobody@acme.example --password long-enough'),
    2,
    /no user nobody@acme\.example in Acme/,
  ],
  [
    'user set-password with a short password',
    cmd('user set-password --org Acme --email ann@acme.example --password short'),
    2,
    /at least 8 characters/,
  ],
  [
    'user create with a bad e-mail address',
    cmd('user create --org Acme --name E --email nope --password long-enough'),
    2,
    /email/,
  ],
  [
    'user create with an e-mail taken in the organization (any case)',
    cmd('user create --org Acme --name A2 --email ANN@acme.example --password long-enough'),
    1,
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
  ['client list without --org', cmd('client list'), 2, /--org is required/],
  ['client update without the client', cmd('client update --scope read:orders'), 2, /needs the client's id/],
  ['client update without --scope', cmd('client update clt_x'), 2, /--scope is required/],
  [
    'client update with an unknown scope',
    cmd('client update clt_x --scope', 'read:orders read:secrets'),
    2,
    /unknown scope read:secrets/,
  ],
  [
    'client update of a client that does not exist',
    cmd('client update clt_nope --scope read:orders'),
    2,
    /no client "clt_nope"/,
  ],
  ['client revoke of a client that does not exist', cmd('client revoke clt_nope'), 2, /no client "clt_nope"/],
  ["client revoke of the CLI's own client", cmd('client revoke api-cli'), 2, /command-line client's own/],
  ['client create with a CLIENT argument', cmd(`${CLIENT} clt_x`), 2, /takes no CLIENT argument/],
  ['an unknown command', cmd('frobnicate'), 2, /unknown command "frobnicate"/],
  ['an unknown action', cmd('keys delete'), 2, /unknown action "keys delete"/],
  ['an unknown option', cmd('org create --name X --colour red'), 2, /--colour/],
  [
    'a mistyped option, as the CLI names it',
    cmd('serve --prot 1'),
    2,
    /^api-server: unknown option --prot for api-server serve \(did you mean --port\?\); see: api-server serve --help$/m,
  ],
  [
    'a mistyped option before the command, which took its value for the command',
    cmd('--prot 1'),
    2,
    /unknown option --prot for api-server serve \(did you mean --port\?\)/,
  ],
  [
    'a mistyped option of an admin command',
    cmd('user list --org Acme --emial x'),
    2,
    /unknown option --emial for api-server user \(did you mean --email\?\)/,
  ],
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

/** The permission bits of a file. */
const modeOf = (path: string) => statSync(path).mode & 0o777

/** A new directory for what `unprivileged` commands are refused or allowed. */
function runnerDir(name: string): string {
  const path = join(dir, 'runner', name)
  mkdirSync(path, { recursive: true })
  return path
}

/** A file its owner may read and write, empty unless `content` is given. */
function runnerFile(path: string, content = ''): string {
  writeFileSync(path, content, { mode: 0o600 })
  return path
}

describe('api-server --db in a directory that does not exist', () => {
  const commands: [string, string[]][] = [
    ['serve', cmd('serve --port 0')],
    ['migrate', cmd('migrate')],
    ['seed', cmd('seed')],
    ['org create', cmd('org create --name Initech')],
    ['user create', cmd(`${USER} --password long-enough`)],
    ['client create', cmd(CLIENT)],
    ['keys rotate', cmd('keys rotate')],
    ['backup', cmd('backup copy.db')],
  ]
  it.each(commands)(
    '%s exits 1 naming the directory, and creates neither it nor a database',
    async (_, args) => {
      const missing = join(dir, 'no', 'such', 'dir')
      const run = await runAdmin(args, join(missing, 'api.db'), { timeoutMs: 20_000 })
      expect(run).toEqual({
        status: 1,
        stdout: '',
        stderr: `api-server: the directory ${missing} does not exist\n`,
      })
      expect(existsSync(join(dir, 'no'))).toBe(false)
    },
    30_000,
  )
})

describe('api-server with a file it cannot use', () => {
  // Root may write any file, so under root these run without the capabilities that let it (test/admin/run.ts).
  const cases: [string, () => { args: string[]; db: string; reason: string }][] = [
    [
      'a read-only database file',
      () => {
        const db = runnerFile(join(runnerDir('read-only-file'), 'api.db'))
        chmodSync(db, 0o444)
        return { args: ['migrate'], db, reason: `the database file ${db} is read-only` }
      },
    ],
    [
      'a database in a read-only directory',
      () => {
        const parent = runnerDir('read-only-dir')
        const db = runnerFile(join(parent, 'api.db'))
        chmodSync(parent, 0o555)
        readOnlyDirs.push(parent)
        return {
          args: ['migrate'],
          db,
          reason: `the directory ${parent} is read-only (SQLite writes api.db-wal and -shm beside the database)`,
        }
      },
    ],
    [
      'a --db that is a directory',
      () => {
        const db = runnerDir('a-directory')
        return { args: ['migrate'], db, reason: `${db} is a directory, not a database file` }
      },
    ],
    [
      'a file that is not a database',
      () => {
        const db = runnerFile(join(runnerDir('not-a-database'), 'api.db'), 'name,email\n')
        return { args: ['migrate'], db, reason: `${db} is not a SQLite database` }
      },
    ],
    [
      'a backup into a read-only directory',
      () => {
        const parent = runnerDir('backup-read-only')
        const db = runnerFile(join(parent, 'api.db'))
        const out = join(parent, 'out')
        mkdirSync(out, { mode: 0o555 })
        chmodSync(out, 0o555)
        readOnlyDirs.push(out)
        const copy = join(out, 'copy.db')
        return { args: ['backup', copy], db, reason: `cannot create ${copy}: permission denied` }
      },
    ],
    [
      'a backup into a directory that does not exist',
      () => {
        const parent = runnerDir('backup-missing')
        const db = runnerFile(join(parent, 'api.db'))
        const missing = join(parent, 'missing')
        return {
          args: ['backup', join(missing, 'copy.db')],
          db,
          reason: `the directory ${missing} does not exist`,
        }
      },
    ],
  ]
  it.each(cases)('exits 1 with one line naming the file for %s', async (_, setup) => {
    const { args, db, reason } = setup()
    const run = await runAdmin(args, db, { unprivileged: true })
    expect(run).toEqual({ status: 1, stdout: '', stderr: `api-server: ${reason}\n` })
  })
})

describe('files holding password hashes are created 0600, whatever the umask', () => {
  it('creates the database 0600 and leaves the mode of an existing one alone', async () => {
    const fresh = join(dir, 'modes.db')
    expect((await runAdmin(['migrate'], fresh, { umask: '000' })).status).toBe(0)
    expect(modeOf(fresh)).toBe(0o600)
    chmodSync(fresh, 0o640)
    expect((await runAdmin(['migrate'], fresh, { umask: '000' })).status).toBe(0)
    expect(modeOf(fresh)).toBe(0o640)
  })

  it('creates a backup 0600', async () => {
    const copy = join(dir, 'modes-backup.db')
    expect((await runAdmin(['backup', copy], db, { umask: '000' })).status).toBe(0)
    expect(modeOf(copy)).toBe(0o600)
  })

  it('creates the -wal and -shm files of a serving database 0600', async () => {
    const served = join(dir, 'modes-served.db')
    const proc = Bun.spawn(adminCommand(['serve', '--port', '0'], served, { umask: '000' }), {
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, API_DB: undefined },
      timeout: 30_000,
      killSignal: 'SIGKILL',
    })
    try {
      // The line for people comes on stderr once listening.
      const reader = proc.stderr.getReader()
      let output = ''
      while (!output.includes('listening on')) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`api-server serve did not start: ${output}`)
        output += new TextDecoder().decode(value)
      }
      reader.releaseLock()
      const modes = [served, `${served}-wal`, `${served}-shm`].map((file) => [file, modeOf(file)])
      expect(modes).toEqual([served, `${served}-wal`, `${served}-shm`].map((file) => [file, 0o600]))
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 30_000)

  it('creates only the default ./data directory on demand (its database 0600)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'api-admin-default-'))
    try {
      expect((await runAdmin(['migrate'], null, { cwd, umask: '000' })).status).toBe(0)
      expect(modeOf(join(cwd, 'data', 'api.db'))).toBe(0o600)
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })
})

describe('an admin command on --db :memory:', () => {
  const MEMORY =
    "api-server: --db :memory: would be a new database that vanishes when this command ends; give the server's database file or postgres:// URL\n"
  const commands: [string, string[]][] = [
    ['migrate', cmd('migrate')],
    ['seed', cmd('seed')],
    ['org create', cmd('org create --name Initech')],
    ['org list', cmd('org list')],
    ['user create', cmd(`${USER} --password long-enough`)],
    ['user list', cmd('user list --org Acme')],
    [
      'user set-password',
      cmd('user set-password --org Acme --email ann@acme.example --password long-enough'),
    ],
    ['client create', cmd(CLIENT)],
    ['client list', cmd('client list --org Acme')],
    ['client update', cmd('client update clt_x --scope read:orders')],
    ['client revoke', cmd('client revoke clt_x')],
    ['keys rotate', cmd('keys rotate')],
    ['backup', cmd('backup copy.db')],
  ]
  it.each(commands)('%s is refused: exit 2, one line, no file', async (_, args) => {
    const cwd = mkdtempSync(join(tmpdir(), 'api-admin-memory-'))
    try {
      expect(await runAdmin(args, ':memory:', { cwd })).toEqual({ status: 2, stdout: '', stderr: MEMORY })
      expect(await runAdmin(args, null, { cwd, env: { API_DB: ':memory:' } })).toEqual({
        status: 2,
        stdout: '',
        stderr: MEMORY,
      })
      expect(readdirSync(cwd)).toEqual([])
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })
})
