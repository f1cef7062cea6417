import { isoNow } from '../../../shared/time.ts'
import type { KeyRow } from '../types.ts'
import type { Database } from './db.ts'

export function insertKey(
  db: Database,
  kid: string,
  privateJwk: string,
  publicJwk: string,
  now = Date.now(),
): void {
  const at = isoNow(now)
  db.transaction(() => {
    db.query('UPDATE signing_keys SET retired_at = ?, updated_at = ? WHERE retired_at IS NULL').run(at, at)
    db.query(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ).run(kid, privateJwk, publicJwk, at, at)
  })()
}

/** The signing key (newest, not retired) and every key retired less than `keepMs` ago, newest first. */
export function liveKeys(db: Database, keepMs: number, now = Date.now()): KeyRow[] {
  return db
    .query('SELECT * FROM signing_keys WHERE retired_at IS NULL OR retired_at > ? ORDER BY created_at DESC')
    .all(isoNow(now - keepMs)) as KeyRow[]
}
