import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { type ListedOrg, type Org, OrgNameTakenError } from '../types.ts'

/**
 * The key that makes names unique whatever their case. Lowered here rather than by SQL's lower(),
 * which folds ASCII letters only on SQLite and under PostgreSQL's "C" collation; names stored
 * before the key existed got it from lower() (the migration 0008_operator_commands.sql).
 */
const nameKey = (name: string) => name.toLowerCase()

/**
 * Creates an organization unless one already has this name in any case (`acme` when `Acme`
 * exists): the unique index on `name_key` decides, in the insert itself, so that two admin
 * commands running at once cannot both create it.
 */
export async function createOrg(x: Executor, name: string): Promise<Org> {
  const id = newId('org')
  const now = isoNow()
  const created = await x.run(
    `INSERT INTO orgs (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (name_key) DO NOTHING`,
    [id, name, nameKey(name), now, now],
  )
  if (created === 0) {
    const taken = await findOrg(x, name)
    const as = taken && taken.name !== name ? ` (as ${JSON.stringify(taken.name)})` : ''
    throw new OrgNameTakenError(`an organization named ${JSON.stringify(name)} exists already${as}`)
  }
  return { id, name }
}

/** Creates an organization whose name, in any case, and id are not taken yet. */
export async function createUniqueOrg(x: Executor, name: string): Promise<Org> {
  return x.transaction(async (x) => {
    if ((await x.get('SELECT 1 FROM orgs WHERE id = ?', [name])) !== null)
      throw new OrgNameTakenError(`an organization named ${JSON.stringify(name)} exists already`)
    return createOrg(x, name)
  })
}

/**
 * Finds an organization by id or exact name, else by its name in any case (the oldest of names
 * that differ only in case, which a database from before they were unique may hold).
 */
export async function findOrg(x: Executor, idOrName: string): Promise<Org | null> {
  const exact = (await x.get(
    'SELECT id, name FROM orgs WHERE id = ? OR name = ? ORDER BY created_at LIMIT 1',
    [idOrName, idOrName],
  )) as Org | null
  return (
    exact ??
    ((await x.get('SELECT id, name FROM orgs WHERE name_key = ?', [nameKey(idOrName)])) as Org | null)
  )
}

/** Whether the database holds any organization. */
export async function anyOrg(x: Executor): Promise<boolean> {
  return (await x.get('SELECT 1 FROM orgs LIMIT 1')) !== null
}

/** Every organization, oldest first. */
export async function listOrgs(x: Executor): Promise<ListedOrg[]> {
  const rows = (await x.all('SELECT id, name, created_at FROM orgs ORDER BY created_at, id')) as {
    id: string
    name: string
    created_at: string
  }[]
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }))
}
