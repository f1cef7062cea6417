import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { DeviceCode, DeviceCodeStatus } from '../types.ts'
import type { Database } from './db.ts'
import { deleteOlderThan } from './purge.ts'

interface DeviceRow {
  hash: string
  user_code: string
  client_id: string
  requested_scope: string | null
  status: DeviceCodeStatus
  org_id: string | null
  user_id: string | null
  scope: string | null
  interval: number
  last_polled_at: string | null
  expires_at: string
}

const fromRow = (row: DeviceRow): DeviceCode => ({
  hash: row.hash,
  userCode: row.user_code,
  clientId: row.client_id,
  requestedScope: row.requested_scope,
  status: row.status,
  orgId: row.org_id,
  userId: row.user_id,
  scope: (row.scope ?? '').split(' ').filter(Boolean),
  interval: row.interval,
  lastPolledAt: row.last_polled_at === null ? null : Date.parse(row.last_polled_at),
  expiresAt: Date.parse(row.expires_at),
})

/** Stores a new device authorization; false when the user code is taken (the caller draws another). */
export function insertDeviceCode(
  db: Database,
  deviceCode: string,
  input: {
    userCode: string
    clientId: string
    requestedScope: string | null
    interval: number
    expiresAt: number
  },
  now: number,
): boolean {
  const at = isoNow(now)
  const result = db
    .query(
      `INSERT INTO oauth_device_codes
         (hash, user_code, client_id, requested_scope, status, interval, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?)
       ON CONFLICT (user_code) DO NOTHING`,
    )
    .run(
      hashToken(deviceCode),
      input.userCode,
      input.clientId,
      input.requestedScope,
      input.interval,
      isoNow(input.expiresAt),
      at,
      at,
    )
  return result.changes === 1
}

export function findDeviceCode(db: Database, deviceCode: string): DeviceCode | null {
  const row = db
    .query('SELECT * FROM oauth_device_codes WHERE hash = ?')
    .get(hashToken(deviceCode)) as DeviceRow | null
  return row ? fromRow(row) : null
}

export function findDeviceCodeByHash(db: Database, hash: string): DeviceCode | null {
  const row = db.query('SELECT * FROM oauth_device_codes WHERE hash = ?').get(hash) as DeviceRow | null
  return row ? fromRow(row) : null
}

export function findDeviceCodeByUserCode(db: Database, userCode: string): DeviceCode | null {
  const row = db
    .query('SELECT * FROM oauth_device_codes WHERE user_code = ?')
    .get(userCode) as DeviceRow | null
  return row ? fromRow(row) : null
}

/** Records a poll; `interval` is the (possibly raised) interval to keep for later polls. */
export function recordPoll(db: Database, hash: string, interval: number, now: number): void {
  const at = isoNow(now)
  db.query(
    'UPDATE oauth_device_codes SET last_polled_at = ?, interval = ?, updated_at = ? WHERE hash = ?',
  ).run(at, interval, at, hash)
}

/** The user's decision; only a pending code can be decided, once. Returns false otherwise. */
export function decideDeviceCode(
  db: Database,
  hash: string,
  decision:
    | { status: 'approved'; orgId: string; userId: string; scope: string[] }
    | { status: 'denied'; orgId: string; userId: string },
  now: number,
): boolean {
  const at = isoNow(now)
  const scope = decision.status === 'approved' ? decision.scope.join(' ') : null
  return (
    db
      .query(
        `UPDATE oauth_device_codes SET status = ?, org_id = ?, user_id = ?, scope = ?, updated_at = ?
         WHERE hash = ? AND status = 'pending' AND expires_at > ?`,
      )
      .run(decision.status, decision.orgId, decision.userId, scope, at, hash, at).changes === 1
  )
}

/** Moves an approved code to redeemed; false when another poll did it first. */
export function redeemDeviceCode(db: Database, hash: string, now: number): boolean {
  const at = isoNow(now)
  return (
    db
      .query(
        "UPDATE oauth_device_codes SET status = 'redeemed', updated_at = ? WHERE hash = ? AND status = 'approved'",
      )
      .run(at, hash).changes === 1
  )
}

/**
 * Deletes at most `limit` device codes a day past their expiry, which also frees their user codes;
 * returns how many. The token endpoint and the device page compare the expiry themselves.
 */
export function purgeExpiredDeviceCodes(db: Database, now: number, limit: number): number {
  return deleteOlderThan(db, 'oauth_device_codes', 'expires_at', now - 86_400_000, limit)
}
