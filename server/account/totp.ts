import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp'
import { constantTimeEqual } from '../../shared/crypto.ts'
import { seal, unseal } from '../crypto/seal.ts'
import type { OAuthContext } from '../oauth/context.ts'

// RFC 6238 with the parameters every authenticator app understands: SHA-1, 30 s, 6 digits.
const PERIOD_S = 30
const DIGITS = 6
/** RFC 6238 §5.2: one step either way, for a phone's clock a little off and the time to type. */
const DRIFT_STEPS = 1

const sealingKey = (ctx: Pick<OAuthContext, 'store'>) => ctx.store.settings.instanceSecret('totp-secrets')

/** A new 20-byte secret (RFC 4226 §4's recommended 160 bits), and its sealed form for the store. */
export async function newTotpSecret(
  ctx: Pick<OAuthContext, 'store'>,
): Promise<{ key: Uint8Array; sealed: string }> {
  const key = crypto.getRandomValues(new Uint8Array(20))
  return { key, sealed: seal(await sealingKey(ctx), Buffer.from(key).toString('base64')) }
}

export async function unsealTotpSecret(
  ctx: Pick<OAuthContext, 'store'>,
  sealed: string,
): Promise<Uint8Array> {
  return new Uint8Array(Buffer.from(unseal(await sealingKey(ctx), sealed), 'base64'))
}

/** A code as typed: six digits, spaces ignored; null for anything else. */
export function parseTotpCode(input: string): string | null {
  const code = input.replace(/\s+/g, '')
  return /^\d{6}$/.test(code) ? code : null
}

/**
 * The time step whose code `code` is (now, or one step either way), or null. The caller then has
 * the store accept that step once (`acceptTotpStep`), so a code works once in its window.
 */
export function matchingStep(key: Uint8Array, code: string, now: number): number | null {
  const current = Math.floor(now / 1000 / PERIOD_S)
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step++) {
    const expected = generateHOTP(key, BigInt(step), DIGITS)
    if (constantTimeEqual(Buffer.from(expected), Buffer.from(code))) return step
  }
  return null
}

/** The `otpauth://` URI of the QR code: issuer the service's host, account the user's e-mail. */
export const totpKeyUri = (issuer: string, email: string, key: Uint8Array): string =>
  createTOTPKeyURI(new URL(issuer).host, email, key, PERIOD_S, DIGITS)

/**
 * Checks a TOTP code of the user's: true when it matches the (confirmed, or with `confirm` the
 * pending) secret and its step had not been used. `confirm` confirms a pending enrolment.
 */
export async function checkTotpCode(
  ctx: Pick<OAuthContext, 'store' | 'clock'>,
  userId: string,
  input: string,
  confirm: boolean,
): Promise<boolean> {
  const code = parseTotpCode(input)
  const row = code ? await ctx.store.signIn.totpOf(userId) : null
  if (!code || !row || (!confirm && row.confirmedAt === null)) return false
  const now = ctx.clock()
  const step = matchingStep(await unsealTotpSecret(ctx, row.sealedSecret), code, now)
  return step !== null && (await ctx.store.signIn.acceptTotpStep(userId, step, now, confirm))
}
