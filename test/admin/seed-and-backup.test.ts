import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_USERS } from '../../server/admin/seed.ts'
import { runAdmin, runOk } from './run.ts'

let dir: string
let db: string
let firstSeed: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-seed-'))
  db = join(dir, 'demo.db')
  firstSeed = await runOk(['seed'], db)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TABLES = [
  'orgs',
  'users',
  'products',
  'orders',
  'line_items',
  'posts',
  'comments',
  'events',
  'oauth_clients',
]

function withDatabase<T>(path: string, read: (conn: Database) => T): T {
  const conn = new Database(path, { readonly: true })
  try {
    return read(conn)
  } finally {
    conn.close()
  }
}

const counts = (path: string) =>
  withDatabase(path, (conn) =>
    Object.fromEntries(
      TABLES.map((t) => [t, (conn.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
    ),
  )

/**
 * Every row of every table, as sorted JSON lines (some tables have no rowid to order by). The
 * full-text indexes' own tables are left out: a backup rebuilds them (server/ops/backup.ts), so
 * their pages differ while their answers do not (test/operations/backup.test.ts searches a copy).
 */
const dump = (path: string) =>
  withDatabase(path, (conn) => {
    const tables = (
      conn.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string
      }[]
    ).filter(({ name }) => !/_fts_(data|idx|docsize|config)$/.test(name))
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        conn
          .query(`SELECT * FROM "${name}"`)
          .all()
          .map((row) => JSON.stringify(row))
          .sort(),
      ]),
    )
  })

describe('api-server seed', () => {
  it('loads two organizations with users, products, orders, posts and comments', () => {
    expect(firstSeed).toStartWith('Loaded the demo data.\n')
    const n = counts(db)
    expect(n.orgs).toBe(2)
    expect(n.users).toBe(DEMO_USERS.length)
    for (const table of ['products', 'orders', 'line_items', 'posts', 'comments', 'events'])
      expect(n[table]).toBeGreaterThan(0)
  })

  it('prints every demo login with its password', () => {
    for (const user of DEMO_USERS) expect(firstSeed).toContain(`${user.email}  password: ${user.password}`)
  })

  it('stores the demo passwords as argon2id hashes that verify', async () => {
    const rows = withDatabase(
      db,
      (conn) =>
        conn.query('SELECT email, password_hash FROM users').all() as {
          email: string
          password_hash: string
        }[],
    )
    for (const user of DEMO_USERS) {
      const row = rows.find((r) => r.email === user.email)!
      expect(row.password_hash).toStartWith('$argon2id$')
      expect(await Bun.password.verify(user.password, row.password_hash)).toBe(true)
    }
  })

  it('changes nothing when run a second time', async () => {
    const before = counts(db)
    const again = await runAdmin(['seed', '--json'], db)
    expect(again.status).toBe(0)
    expect(JSON.parse(again.stdout).created).toBe(false)
    expect(await runOk(['seed'], db)).toStartWith('The demo data is already there.\n')
    expect(counts(db)).toEqual(before)
  })
})

describe('api-server backup', () => {
  it('writes a database with the same rows in every table', async () => {
    const target = join(dir, 'backup.db')
    expect(await runOk(['backup', target], db)).toBe(`backup written to ${target}\n`)
    const original = dump(db)
    expect(original.orders!.length).toBeGreaterThan(0)
    expect(dump(target)).toEqual(original)
  })

  it('prints {"file"} with --json', async () => {
    const target = join(dir, 'backup-json.db')
    expect(JSON.parse(await runOk(['backup', target, '--json'], db))).toEqual({ file: target })
  })

  it('refuses to overwrite an existing file, with a one-line reason', async () => {
    const target = join(dir, 'taken.db')
    writeFileSync(target, 'keep me')
    const run = await runAdmin(['backup', target], db)
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(/^api-server: [^\n]+\n$/)
    expect(await Bun.file(target).text()).toBe('keep me')
  })
})
