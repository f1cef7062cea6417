import { newId } from '../../shared/ids.ts'
import type { Database } from './db.ts'
import { isoNow } from './time.ts'

export interface Org {
  id: string
  name: string
}

export function createOrg(db: Database, name: string): Org {
  const id = newId('org')
  const now = isoNow()
  db.query('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, name, now, now)
  return { id, name }
}

/** Finds an organization by id or by exact name. */
export function findOrg(db: Database, idOrName: string): Org | null {
  return db
    .query('SELECT id, name FROM orgs WHERE id = ?1 OR name = ?1 ORDER BY created_at LIMIT 1')
    .get(idOrName) as Org | null
}
