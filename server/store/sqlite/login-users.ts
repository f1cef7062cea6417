import type { LoginUser, Role } from '../types.ts'
import type { Database } from './db.ts'

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
export function usersByEmail(db: Database, email: string, orgId: string | null): LoginUser[] {
  const rows = (
    orgId === null
      ? db.query(`${SELECT} WHERE users.email = ? ORDER BY orgs.name, users.id`).all(email)
      : db.query(`${SELECT} WHERE users.email = ? AND users.org_id = ?`).all(email, orgId)
  ) as LoginRow[]
  return rows.map(fromRow)
}

export function userById(db: Database, id: string): LoginUser | null {
  const row = db.query(`${SELECT} WHERE users.id = ?`).get(id) as LoginRow | null
  return row ? fromRow(row) : null
}

/** The user's role now (a client may change it at any time), or null when there is no such user. */
export function roleOfUser(db: Database, id: string): string | null {
  const row = db.query('SELECT role FROM users WHERE id = ?').get(id) as { role: string } | null
  return row?.role ?? null
}
