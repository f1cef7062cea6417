import { sha256Hex } from '../../shared/crypto.ts'
import type { OAuthContext } from '../oauth/context.ts'

const COUNT = 10
// RFC 4648's base32 alphabet, lower-case: 10 characters carry 50 bits, and no 0/O or 1/l to confuse.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

/** Ten new random codes, `xxxxx-xxxxx` (50 bits each). */
function newCodes(): string[] {
  return Array.from({ length: COUNT }, () => {
    const bytes = crypto.getRandomValues(new Uint8Array(10))
    const chars = [...bytes].map((b) => ALPHABET[b & 31]).join('')
    return `${chars.slice(0, 5)}-${chars.slice(5)}`
  })
}

/** A recovery code as typed, case, dashes and spaces ignored; null when it cannot be one. */
export function normalizeRecoveryCode(input: string): string | null {
  const code = input.replace(/[\s-]+/g, '').toLowerCase()
  return /^[a-z2-7]{10}$/.test(code) ? code : null
}

const hashOf = (normalized: string) => sha256Hex(normalized)

/**
 * Makes the user's ten recovery codes, replacing any earlier ones, and returns them to be shown
 * once: only their SHA-256 hashes are kept. Called when a first second factor is enrolled (the
 * authenticator app here; the passkeys part calls it for a first passkey) and by
 * `Make new recovery codes`.
 */
export async function issueRecoveryCodes(
  ctx: Pick<OAuthContext, 'store' | 'clock'>,
  userId: string,
): Promise<string[]> {
  const codes = newCodes()
  await ctx.store.signIn.replaceRecoveryCodes(
    userId,
    codes.map((c) => hashOf(normalizeRecoveryCode(c)!)),
    ctx.clock(),
  )
  return codes
}

/** Uses one of the user's recovery codes: true once per unused code. */
export async function useRecoveryCode(
  ctx: Pick<OAuthContext, 'store' | 'clock'>,
  userId: string,
  input: string,
): Promise<boolean> {
  const code = normalizeRecoveryCode(input)
  return code !== null && (await ctx.store.signIn.useRecoveryCode(userId, hashOf(code), ctx.clock()))
}
