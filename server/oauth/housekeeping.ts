import type { Database } from '../store/db.ts'
import { purgeExpiredCodes } from '../store/oauth-codes.ts'
import { purgeExpiredDeviceCodes } from '../store/oauth-device-codes.ts'
import { purgeExpiredGrants } from '../store/oauth-grants.ts'
import { purgeExpiredRevocations } from '../store/oauth-revoked-tokens.ts'

const EVERY_MS = 60_000
let lastRun = 0

/** Deletes expired codes, device codes, refresh tokens, grants and revocations, at most once a minute. */
export function purgeExpired(db: Database, now: number): void {
  if (now - lastRun < EVERY_MS) return
  lastRun = now
  db.transaction(() => {
    purgeExpiredCodes(db, now)
    purgeExpiredDeviceCodes(db, now)
    purgeExpiredGrants(db, now)
    purgeExpiredRevocations(db, now)
  })()
}
