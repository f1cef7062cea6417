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

    expect(await migrateDatabase(db, exampleSchema())).toBe(MIGRATIONS.length)

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

    expect(await migrateDatabase(db, exampleSchema())).toBe(MIGRATIONS.length)

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
