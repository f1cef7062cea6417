import { describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from 'bun-sqlite-migrations'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { MIGRATIONS } from '../../server/store/sqlite/migrations.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

describe('migration 4 (idempotency keys per user, optional comment authors)', () => {
  it('keeps every comment, its full-text index and its author when it upgrades a version-3 database', () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'api-migrate-')), 'api.db'))
    migrate(db, MIGRATIONS, 3)
    const now = new Date().toISOString()
    const org = newId('org', Date.now())
    const user = newId('usr', Date.now())
    const post = newId('pst', Date.now())
    const comment = newId('cmt', Date.now())
    db.run('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [org, 'Old', now, now])
    db.run(
      "INSERT INTO users (id, org_id, name, email, role, created_at, updated_at) VALUES (?, ?, 'Ann', 'ann@example.com', 'member', ?, ?)",
      [user, org, now, now],
    )
    db.run(
      "INSERT INTO posts (id, org_id, author_id, title, body, published, created_at, updated_at) VALUES (?, ?, ?, 'T', '', 0, ?, ?)",
      [post, org, user, now, now],
    )
    db.run(
      "INSERT INTO comments (id, org_id, post_id, author_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, 'kept across the upgrade', ?, ?)",
      [comment, org, post, user, now, now],
    )

    expect(migrateDatabase(db, exampleSchema())).toBe(MIGRATIONS.length)

    const found = db
      .query(
        "SELECT c.id, c.author_id FROM comments_fts f JOIN comments c ON c.rowid = f.rowid WHERE comments_fts MATCH 'upgrade'",
      )
      .all()
    expect(found).toEqual([{ id: comment, author_id: user }])
    db.run(
      "INSERT INTO comments (id, org_id, post_id, author_id, text, created_at, updated_at) VALUES (?, ?, ?, NULL, 'no author', ?, ?)",
      [newId('cmt', Date.now()), org, post, now, now],
    )
    expect(
      db.query("SELECT count(*) AS n FROM comments_fts WHERE comments_fts MATCH 'author'").get(),
    ).toEqual({
      n: 1,
    })
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    expect(db.query('PRAGMA foreign_key_check').all()).toEqual([])
  })
})

describe('migration 6 (who made an event, in which request)', () => {
  it('keeps every event of a version-5 database, with null for actor and requestId', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'api-migrate-')), 'api.db'))
    migrate(db, MIGRATIONS, 5)
    const now = new Date().toISOString()
    const org = newId('org', Date.now())
    const event = newId('evt', Date.now())
    db.run('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [org, 'Old', now, now])
    db.run(
      "INSERT INTO events (id, org_id, type, resource, resource_id, data, created_at, updated_at) VALUES (?, ?, 'user.created', 'users', 'usr_x', '{\"id\":\"usr_x\"}', ?, ?)",
      [event, org, now, now],
    )

    expect(migrateDatabase(db, exampleSchema())).toBe(MIGRATIONS.length)

    const store = sqliteStore(db, exampleSchema())
    const [kept] = await store.events.after(org, { after: 0, until: await store.events.last() }, {}, 10)
    expect(kept!.entity).toEqual({
      id: event,
      type: 'user.created',
      resource: 'users',
      resourceId: 'usr_x',
      data: { id: 'usr_x' },
      actor: null,
      requestId: null,
      createdAt: now,
      updatedAt: now,
    })
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
  })
})

describe('migration 8 (organization names unique whatever their case, revoked clients)', () => {
  it('keeps two names of a version-7 database that differ only in case, the older holding the name', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'api-migrate-')), 'api.db'))
    migrate(db, MIGRATIONS, 7)
    const older = newId('org', Date.now())
    const newer = newId('org', Date.now() + 1)
    const other = newId('org', Date.now() + 2)
    for (const [id, name, at] of [
      [older, 'Acme', '2026-01-01T00:00:00.000Z'],
      [newer, 'ACME', '2026-01-02T00:00:00.000Z'],
      [other, 'Globex', '2026-01-03T00:00:00.000Z'],
    ])
      db.run('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [
        id!,
        name!,
        at!,
        at!,
      ])

    expect(migrateDatabase(db, exampleSchema())).toBe(MIGRATIONS.length)

    expect(db.query('SELECT id, name, name_key FROM orgs ORDER BY created_at').all()).toEqual([
      { id: older, name: 'Acme', name_key: 'acme' },
      { id: newer, name: 'ACME', name_key: null },
      { id: other, name: 'Globex', name_key: 'globex' },
    ])
    const store = sqliteStore(db, exampleSchema())
    // Each is still found by its own name; the name in another case finds the older.
    expect((await store.orgs.find('ACME'))?.id).toBe(newer)
    expect((await store.orgs.find('acme'))?.id).toBe(older)
    for (const name of ['acme', 'ACME', 'globex'])
      await expect(store.orgs.createUnique(name)).rejects.toThrow(/exists already/)
    expect((await store.orgs.create('Initech')).name).toBe('Initech')
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
  })
})
