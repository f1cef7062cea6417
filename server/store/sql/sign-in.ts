import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { deleteOlderThan } from './purge.ts'

/** An organization's second-factor policy (`api-server org update ORG --require-2fa`). */
export type SecondFactorPolicy = 'none' | 'admins' | 'all'

/** An outside identity (a provider's subject) linked to a user. */
export interface LinkedIdentity {
  provider: string
  subject: string
  userId: string
  email: string | null
  createdAt: string
}

/** A user's TOTP secret, sealed; `confirmedAt` null until a first code confirmed the enrolment. */
export interface TotpRow {
  sealedSecret: string
  confirmedAt: string | null
  /** The last time step a code was accepted for: a code is accepted once in its window. */
  lastStep: number
}

/** A registered passkey (WebAuthn credential); the public key as base64 of its COSE/SEC1 bytes. */
export interface PasskeyRow {
  /** The credential id, base64url without padding. */
  id: string
  userId: string
  name: string
  /** The COSE algorithm (-7 ES256, -257 RS256). */
  algorithm: number
  publicKey: string
  signCount: number
  createdAt: string
  lastUsedAt: string | null
}

/** What a user has enrolled, without any secret. */
export interface UserFactors {
  totp: boolean
  passkeys: number
  recoveryCodesLeft: number
}

export async function findIdentity(
  x: Executor,
  provider: string,
  subject: string,
): Promise<LinkedIdentity | null> {
  const row = (await x.get(
    'SELECT provider, subject, user_id, email, created_at FROM user_identities WHERE provider = ? AND subject = ?',
    [provider, subject],
  )) as IdentityRow | null
  return row ? identityFromRow(row) : null
}

/** Links an identity to a user; false when the provider's subject is linked already (to anyone). */
export async function linkIdentity(
  x: Executor,
  identity: Omit<LinkedIdentity, 'createdAt'>,
  now: number,
): Promise<boolean> {
  const inserted = await x.run(
    `INSERT INTO user_identities (provider, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (provider, subject) DO NOTHING`,
    [identity.provider, identity.subject, identity.userId, identity.email, isoNow(now)],
  )
  return inserted > 0
}

export async function identitiesOf(x: Executor, userId: string): Promise<LinkedIdentity[]> {
  const rows = (await x.all(
    'SELECT provider, subject, user_id, email, created_at FROM user_identities WHERE user_id = ? ORDER BY created_at, provider',
    [userId],
  )) as IdentityRow[]
  return rows.map(identityFromRow)
}

export async function unlinkIdentity(
  x: Executor,
  userId: string,
  provider: string,
  subject: string,
): Promise<boolean> {
  return (
    (await x.run('DELETE FROM user_identities WHERE user_id = ? AND provider = ? AND subject = ?', [
      userId,
      provider,
      subject,
    ])) > 0
  )
}

export async function totpOf(x: Executor, userId: string): Promise<TotpRow | null> {
  const row = (await x.get('SELECT sealed_secret, confirmed_at, last_step FROM user_totp WHERE user_id = ?', [
    userId,
  ])) as { sealed_secret: string; confirmed_at: string | null; last_step: number | bigint } | null
  return row
    ? { sealedSecret: row.sealed_secret, confirmedAt: row.confirmed_at, lastStep: Number(row.last_step) }
    : null
}

/** Starts an enrolment: a new unconfirmed secret replaces any unconfirmed one; false when one is confirmed. */
export async function startTotp(
  x: Executor,
  userId: string,
  sealedSecret: string,
  now: number,
): Promise<boolean> {
  const changed = await x.run(
    `INSERT INTO user_totp (user_id, sealed_secret, confirmed_at, last_step, created_at) VALUES (?, ?, NULL, 0, ?)
     ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
       last_step = 0 WHERE user_totp.confirmed_at IS NULL`,
    [userId, sealedSecret, isoNow(now)],
  )
  return changed > 0
}

/**
 * Accepts the code of time step `step`: true when no code of this step or a later one was accepted
 * before (the same statement moves `last_step`, so two requests with one code cannot both pass).
 * With `confirm`, it also confirms a pending enrolment; without, only a confirmed secret counts.
 */
export async function acceptTotpStep(
  x: Executor,
  userId: string,
  step: number,
  now: number,
  confirm: boolean,
): Promise<boolean> {
  const changed = confirm
    ? await x.run(
        `UPDATE user_totp SET last_step = ?, confirmed_at = COALESCE(confirmed_at, ?)
         WHERE user_id = ? AND last_step < ?`,
        [step, isoNow(now), userId, step],
      )
    : await x.run(
        'UPDATE user_totp SET last_step = ? WHERE user_id = ? AND last_step < ? AND confirmed_at IS NOT NULL',
        [step, userId, step],
      )
  return changed > 0
}

export async function removeTotp(x: Executor, userId: string): Promise<boolean> {
  return (await x.run('DELETE FROM user_totp WHERE user_id = ?', [userId])) > 0
}

/** Replaces the user's recovery codes (their hashes) with new ones. */
export async function replaceRecoveryCodes(
  x: Executor,
  userId: string,
  hashes: readonly string[],
  now: number,
): Promise<void> {
  await x.run('DELETE FROM user_recovery_codes WHERE user_id = ?', [userId])
  for (const hash of hashes)
    await x.run(
      'INSERT INTO user_recovery_codes (user_id, code_hash, used_at, created_at) VALUES (?, ?, NULL, ?)',
      [userId, hash, isoNow(now)],
    )
}

/** Uses a recovery code once: true when it was the user's and unused (the same statement marks it). */
export async function useRecoveryCode(
  x: Executor,
  userId: string,
  hash: string,
  now: number,
): Promise<boolean> {
  return (
    (await x.run(
      'UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL',
      [isoNow(now), userId, hash],
    )) > 0
  )
}

export async function addPasskey(
  x: Executor,
  passkey: Omit<PasskeyRow, 'createdAt' | 'lastUsedAt'>,
  now: number,
) {
  await x.run(
    `INSERT INTO user_passkeys (id, user_id, name, algorithm, public_key, sign_count, created_at, last_used_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
    [
      passkey.id,
      passkey.userId,
      passkey.name,
      passkey.algorithm,
      passkey.publicKey,
      passkey.signCount,
      isoNow(now),
    ],
  )
}

export async function findPasskey(x: Executor, id: string): Promise<PasskeyRow | null> {
  const row = (await x.get(`${PASSKEY_SELECT} WHERE id = ?`, [id])) as PasskeyDbRow | null
  return row ? passkeyFromRow(row) : null
}

export async function passkeysOf(x: Executor, userId: string): Promise<PasskeyRow[]> {
  const rows = (await x.all(`${PASSKEY_SELECT} WHERE user_id = ? ORDER BY created_at, id`, [
    userId,
  ])) as PasskeyDbRow[]
  return rows.map(passkeyFromRow)
}

/**
 * Records a use with the authenticator's new signature counter: refused (false) when the counter
 * did not grow past the stored one, unless both are 0 (an authenticator that keeps no counter).
 */
export async function usePasskey(x: Executor, id: string, signCount: number, now: number): Promise<boolean> {
  return (
    (await x.run(
      `UPDATE user_passkeys SET sign_count = ?, last_used_at = ?
       WHERE id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))`,
      [signCount, isoNow(now), id, signCount, signCount],
    )) > 0
  )
}

export async function removePasskey(x: Executor, userId: string, id: string): Promise<boolean> {
  return (await x.run('DELETE FROM user_passkeys WHERE user_id = ? AND id = ?', [userId, id])) > 0
}

export async function factorsOf(x: Executor, userId: string): Promise<UserFactors> {
  const row = (await x.get(
    `SELECT
       (SELECT COUNT(*) FROM user_totp WHERE user_id = ? AND confirmed_at IS NOT NULL) AS totp,
       (SELECT COUNT(*) FROM user_passkeys WHERE user_id = ?) AS passkeys,
       (SELECT COUNT(*) FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL) AS codes`,
    [userId, userId, userId],
  )) as {
    totp: number | bigint | string
    passkeys: number | bigint | string
    codes: number | bigint | string
  }
  return {
    totp: Number(row.totp) > 0,
    passkeys: Number(row.passkeys),
    recoveryCodesLeft: Number(row.codes),
  }
}

/** Removes every second factor of the user (TOTP, recovery codes, passkeys); `api-server user reset-2fa`. */
export async function resetFactors(x: Executor, userId: string): Promise<void> {
  await x.run('DELETE FROM user_totp WHERE user_id = ?', [userId])
  await x.run('DELETE FROM user_recovery_codes WHERE user_id = ?', [userId])
  await x.run('DELETE FROM user_passkeys WHERE user_id = ?', [userId])
}

/**
 * Records a WebAuthn challenge (its hash) as answered, until it expires: true the first time,
 * false when it was answered already (the insert and the check are one statement).
 */
export async function spendChallenge(
  x: Executor,
  hash: string,
  challenge: { userId: string | null; purpose: string; expiresAt: number },
): Promise<boolean> {
  const inserted = await x.run(
    `INSERT INTO webauthn_challenges (challenge_hash, user_id, purpose, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (challenge_hash) DO NOTHING`,
    [hash, challenge.userId, challenge.purpose, isoNow(challenge.expiresAt)],
  )
  return inserted > 0
}

export async function purgeExpiredChallenges(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'webauthn_challenges', 'expires_at', now, limit)
}

export async function secondFactorPolicy(x: Executor, orgId: string): Promise<SecondFactorPolicy> {
  const row = (await x.get('SELECT require_2fa FROM orgs WHERE id = ?', [orgId])) as {
    require_2fa: string
  } | null
  const value = row?.require_2fa
  return value === 'admins' || value === 'all' ? value : 'none'
}

export async function setSecondFactorPolicy(
  x: Executor,
  orgId: string,
  policy: SecondFactorPolicy,
): Promise<boolean> {
  return (await x.run('UPDATE orgs SET require_2fa = ? WHERE id = ?', [policy, orgId])) > 0
}

interface IdentityRow {
  provider: string
  subject: string
  user_id: string
  email: string | null
  created_at: string
}

const identityFromRow = (row: IdentityRow): LinkedIdentity => ({
  provider: row.provider,
  subject: row.subject,
  userId: row.user_id,
  email: row.email,
  createdAt: row.created_at,
})

const PASSKEY_SELECT =
  'SELECT id, user_id, name, algorithm, public_key, sign_count, created_at, last_used_at FROM user_passkeys'

interface PasskeyDbRow {
  id: string
  user_id: string
  name: string
  algorithm: number
  public_key: string
  sign_count: number | bigint
  created_at: string
  last_used_at: string | null
}

const passkeyFromRow = (row: PasskeyDbRow): PasskeyRow => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  algorithm: Number(row.algorithm),
  publicKey: row.public_key,
  signCount: Number(row.sign_count),
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
})
