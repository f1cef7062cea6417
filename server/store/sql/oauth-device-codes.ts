import { isoNow } from '../../../shared/time.ts'
import { hashToken } from '../../crypto/token-hash.ts'
import type { Executor } from '../executor.ts'
import type { DeviceCode, DeviceCodeStatus } from '../types.ts'
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
export async function insertDeviceCode(
  x: Executor,
  deviceCode: string,
  input: {
    userCode: string
    clientId: string
    requestedScope: string | null
    interval: number
    expiresAt: number
  },
  now: number,
): Promise<boolean> {
  const at = isoNow(now)
  const result = await x.run(
    `INSERT INTO oauth_device_codes
         (hash, user_code, client_id, requested_scope, status, interval, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?)
       ON CONFLICT (user_code) DO NOTHING`,
    [
      hashToken(deviceCode),
      input.userCode,
      input.clientId,
      input.requestedScope,
      input.interval,
      isoNow(input.expiresAt),
      at,
      at,
    ],
  )
  return result === 1
}

export async function findDeviceCode(x: Executor, deviceCode: string): Promise<DeviceCode | null> {
  const row = (await x.get('SELECT * FROM oauth_device_codes WHERE hash = ?', [
    hashToken(deviceCode),
  ])) as DeviceRow | null
  return row ? fromRow(row) : null
}

export async function findDeviceCodeByHash(x: Executor, hash: string): Promise<DeviceCode | null> {
  const row = (await x.get('SELECT * FROM oauth_device_codes WHERE hash = ?', [hash])) as DeviceRow | null
  return row ? fromRow(row) : null
}

export async function findDeviceCodeByUserCode(x: Executor, userCode: string): Promise<DeviceCode | null> {
  const row = (await x.get('SELECT * FROM oauth_device_codes WHERE user_code = ?', [
    userCode,
  ])) as DeviceRow | null
  return row ? fromRow(row) : null
}

/** Records a poll; `interval` is the (possibly raised) interval to keep for later polls. */
export async function recordPoll(x: Executor, hash: string, interval: number, now: number): Promise<void> {
  const at = isoNow(now)
  await x.run(
    'UPDATE oauth_device_codes SET last_polled_at = ?, interval = ?, updated_at = ? WHERE hash = ?',
    [at, interval, at, hash],
  )
}

/** The user's decision; only a pending code can be decided, once. Returns false otherwise. */
export async function decideDeviceCode(
  x: Executor,
  hash: string,
  decision:
    | { status: 'approved'; orgId: string; userId: string; scope: string[] }
    | { status: 'denied'; orgId: string; userId: string },
  now: number,
): Promise<boolean> {
  const at = isoNow(now)
  const scope = decision.status === 'approved' ? decision.scope.join(' ') : null
  return (
    (await x.run(
      `UPDATE oauth_device_codes SET status = ?, org_id = ?, user_id = ?, scope = ?, updated_at = ?
         WHERE hash = ? AND status = 'pending' AND expires_at > ?`,
      [decision.status, decision.orgId, decision.userId, scope, at, hash, at],
    )) === 1
  )
}

/** Moves an approved code to redeemed; false when another poll did it first. */
export async function redeemDeviceCode(x: Executor, hash: string, now: number): Promise<boolean> {
  const at = isoNow(now)
  return (
    (await x.run(
      "UPDATE oauth_device_codes SET status = 'redeemed', updated_at = ? WHERE hash = ? AND status = 'approved'",
      [at, hash],
    )) === 1
  )
}

/**
 * Deletes at most `limit` device codes a day past their expiry, which also frees their user codes;
 * returns how many. The token endpoint and the device page compare the expiry themselves.
 */
export async function purgeExpiredDeviceCodes(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'oauth_device_codes', 'expires_at', now - 86_400_000, limit)
}
