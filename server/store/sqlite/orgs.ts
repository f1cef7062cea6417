import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import { type Org, OrgNameTakenError } from '../types.ts'
import type { Database } from './db.ts'

export function createOrg(db: Database, name: string): Org {
  const id = newId('org')
  const now = isoNow()
  db.query('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, name, now, now)
  return { id, name }
}

/**
 * Creates an organization unless one already has this name (or this id), checked in the write
 * transaction itself so that two admin commands running at once cannot both create it.
 */
export function createUniqueOrg(db: Database, name: string): Org {
  return db
    .transaction(() => {
      if (findOrg(db, name))
        throw new OrgNameTakenError(`an organization named ${JSON.stringify(name)} exists already`)
      return createOrg(db, name)
    })
    .immediate()
}

/** Finds an organization by id or by exact name. */
export function findOrg(db: Database, idOrName: string): Org | null {
  return db
    .query('SELECT id, name FROM orgs WHERE id = ?1 OR name = ?1 ORDER BY created_at LIMIT 1')
    .get(idOrName) as Org | null
}

/** Whether the database holds any organization. */
export function anyOrg(db: Database): boolean {
  return db.query('SELECT 1 FROM orgs LIMIT 1').get() !== null
}
