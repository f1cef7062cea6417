import type { Executor } from '../executor.ts'
import type { ListedUser, LoginUser, Role } from '../types.ts'

interface LoginRow {
  id: string
  org_id: string
  org_name: string
  email: string
  name: string
  role: Role
  password_hash: string | null
}

const SELECT = `SELECT users.id, users.org_id, orgs.name AS org_name, users.email, users.name, users.role,
  users.password_hash FROM users JOIN orgs ON orgs.id = users.org_id`

const fromRow = (row: LoginRow): LoginUser => ({
  id: row.id,
  orgId: row.org_id,
  orgName: row.org_name,
  email: row.email,
  name: row.name,
  role: row.role,
  passwordHash: row.password_hash,
})

/** Every user with this e-mail (case-insensitive), in any organization, or in `orgId` only. */
export async function usersByEmail(x: Executor, email: string, orgId: string | null): Promise<LoginUser[]> {
  const rows = (
    orgId === null
      ? await x.all(`${SELECT} WHERE users.email = ? ORDER BY orgs.name, users.id`, [email])
      : await x.all(`${SELECT} WHERE users.email = ? AND users.org_id = ?`, [email, orgId])
  ) as LoginRow[]
  return rows.map(fromRow)
}

export async function userById(x: Executor, id: string): Promise<LoginUser | null> {
  const row = (await x.get(`${SELECT} WHERE users.id = ?`, [id])) as LoginRow | null
  return row ? fromRow(row) : null
}

/** The user's role now (a client may change it at any time), or null when there is no such user. */
export async function roleOfUser(x: Executor, id: string): Promise<string | null> {
  const row = (await x.get('SELECT role FROM users WHERE id = ?', [id])) as { role: string } | null
  return row?.role ?? null
}

/** The organization's users, oldest first, with whether each has a password (never its hash). */
export async function listUsers(x: Executor, orgId: string): Promise<ListedUser[]> {
  const rows = (await x.all(
    `SELECT id, email, name, role, password_hash IS NOT NULL AS has_password, created_at FROM users
     WHERE org_id = ? ORDER BY created_at, id`,
    [orgId],
  )) as {
    id: string
    email: string
    name: string
    role: Role
    has_password: number | boolean
    created_at: string
  }[]
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    hasPassword: row.has_password === true || row.has_password === 1,
    createdAt: row.created_at,
  }))
}
