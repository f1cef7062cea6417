import { encodeBase64 } from '@oslojs/encoding'
import { isoNow } from '../../../shared/time.ts'
import type { Database } from './db.ts'

/** An instance-wide random secret, created on first use and kept in the database. */
export function instanceSecret(db: Database, name: string): Uint8Array {
  const fresh = encodeBase64(crypto.getRandomValues(new Uint8Array(32)))
  const now = isoNow()
  db.query('INSERT OR IGNORE INTO settings (name, value, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
    name,
    fresh,
    now,
    now,
  )
  const { value } = db.query('SELECT value FROM settings WHERE name = ?').get(name) as { value: string }
  return Uint8Array.from(atob(value), (c) => c.charCodeAt(0))
}
