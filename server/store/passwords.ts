import type { Database } from './db.ts'

export function setPasswordHash(db: Database, userId: string, hash: string): void {
  db.query('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, userId)
}
