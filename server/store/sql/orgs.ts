import { newId } from '../../../shared/ids.ts'
import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { type Org, OrgNameTakenError } from '../types.ts'

export async function createOrg(x: Executor, name: string): Promise<Org> {
  const id = newId('org')
  const now = isoNow()
  await x.run('INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [id, name, now, now])
  return { id, name }
}

/**
 * Creates an organization unless one already has this name (or this id), checked in the write
 * transaction itself so that two admin commands running at once cannot both create it.
 */
export async function createUniqueOrg(x: Executor, name: string): Promise<Org> {
  return x.transaction(async (x) => {
    if (await findOrg(x, name))
      throw new OrgNameTakenError(`an organization named ${JSON.stringify(name)} exists already`)
    return createOrg(x, name)
  })
}

/** Finds an organization by id or by exact name. */
export async function findOrg(x: Executor, idOrName: string): Promise<Org | null> {
  return (await x.get('SELECT id, name FROM orgs WHERE id = ? OR name = ? ORDER BY created_at LIMIT 1', [
    idOrName,
    idOrName,
  ])) as Org | null
}

/** Whether the database holds any organization. */
export async function anyOrg(x: Executor): Promise<boolean> {
  return (await x.get('SELECT 1 FROM orgs LIMIT 1')) !== null
}
