import type { Database } from './db.ts'

export function setPasswordHash(db: Database, userId: string, hash: string): void {
  db.query('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, userId)
}

export function hasUser(db: Database, orgId: string, email: string): boolean {
  return db.query('SELECT 1 FROM users WHERE org_id = ? AND email = ?').get(orgId, email) !== null
}
