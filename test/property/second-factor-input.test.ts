import { describe, expect, it } from 'bun:test'
import { generateHOTP } from '@oslojs/otp'
import fc from 'fast-check'
import { normalizeRecoveryCode } from '../../server/account/recovery-codes.ts'
import { matchingStep, parseTotpCode } from '../../server/account/totp.ts'
import type { OAuthContext } from '../../server/oauth/context.ts'
import { cookieNames } from '../../server/oauth/cookies.ts'
import { readPendingSignIn } from '../../server/oauth/sign-in.ts'
import { Signer } from '../../server/oauth/signer.ts'

/** The parsers of what a person types on /login/verify and /account, and of the pending cookie. */
const SEED = { seed: 29 }
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

describe('parseTotpCode', () => {
  it('takes six digits, however spaced, and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (input) => {
        const code = parseTotpCode(input)
        const digits = input.replace(/\s+/g, '')
        expect(code).toBe(/^\d{6}$/.test(digits) ? digits : null)
      }),
      SEED,
    )
  })

  it('matches a code only at the step it was made for, or one step either way', () => {
    // A fixed key, so that the seeded run is the same every time.
    const key = new Uint8Array(20).map((_, i) => i * 13)
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 2 ** 31 }), fc.integer({ min: -3, max: 3 }), (step, offset) => {
        const code = generateHOTP(key, BigInt(step + offset), 6)
        const found = matchingStep(key, code, step * 30_000 + 15_000)
        // A code of another step may equal one in the window by chance (1 in a million).
        if (Math.abs(offset) <= 1) expect(found).toBe(step + offset)
        else if (found !== null) expect(generateHOTP(key, BigInt(found), 6)).toBe(code)
      }),
      SEED,
    )
  })
})

describe('normalizeRecoveryCode', () => {
  const code = fc.string({ unit: fc.constantFrom(...BASE32), minLength: 10, maxLength: 10 })

  it('ignores case, dashes and spaces', () => {
    fc.assert(
      fc.property(code, fc.constantFrom('', '-', ' ', ' - '), fc.boolean(), (raw, sep, upper) => {
        const typed = `${raw.slice(0, 5)}${sep}${raw.slice(5)}`
        expect(normalizeRecoveryCode(upper ? typed.toUpperCase() : typed)).toBe(raw)
      }),
      SEED,
    )
  })

  it('refuses anything that is not ten base32 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (input) => {
        const result = normalizeRecoveryCode(input)
        if (result !== null) expect(result).toMatch(/^[a-z2-7]{10}$/)
        else expect(input.replace(/[\s-]+/g, '').toLowerCase()).not.toMatch(/^[a-z2-7]{10}$/)
      }),
      SEED,
    )
  })
})

describe('readPendingSignIn', () => {
  const signer = new Signer(new Uint8Array(32).fill(7), () => Date.now())
  // readPendingSignIn reads only the signer and the cookie names of the context.
  const ctx = { signer, cookies: cookieNames('http://127.0.0.1') } as unknown as OAuthContext
  const withCookie = (value: string) =>
    new Request('http://127.0.0.1/login/verify', { headers: { Cookie: `oauth_pending=${value}` } })

  it('reads nothing from an unsigned or forged cookie', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcXYZ019._-~'), maxLength: 200 }), (value) => {
        expect(readPendingSignIn(ctx, withCookie(value))).toBeNull()
      }),
      SEED,
    )
  })

  it('never reads a next that is not a path on this server, whatever was signed', () => {
    const next = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('//evil', '/\\evil', 'https://e/', '/ok'),
    )
    const shape = fc.record({
      uid: fc.oneof(fc.string(), fc.integer()),
      method: fc.constantFrom('password', 'passkey', 'idp:corp', 'magic', 3),
      target: fc.oneof(
        fc.constant(null),
        fc.record({ next, orgId: fc.oneof(fc.constant(null), fc.string(), fc.integer()) }),
      ),
    })
    fc.assert(
      fc.property(shape, (data) => {
        const read = readPendingSignIn(ctx, withCookie(signer.sign('pending-sign-in', data, 60)))
        if (read) expect(read.target.next).toMatch(/^\/(?![/\\])/)
        const valid =
          typeof data.uid === 'string' &&
          ['password', 'passkey', 'idp:corp'].includes(String(data.method)) &&
          data.target !== null &&
          /^\/(?![/\\])/.test(data.target.next) &&
          (data.target.orgId === null || typeof data.target.orgId === 'string')
        expect(read !== null).toBe(valid)
      }),
      SEED,
    )
  })
})
