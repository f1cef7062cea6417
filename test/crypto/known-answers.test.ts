import { describe, expect, it } from 'bun:test'
import {
  constantTimeEqual,
  hmacSha256,
  sha256Base64,
  sha256Base64url,
  sha256Hex,
} from '../../shared/crypto.ts'
import { sign } from '../../shared/webhook-signature.ts'

/**
 * The digests of shared/crypto.ts against the standards' own examples: hashes already stored
 * (tokens, client secrets, stored queries), PKCE challenges, CSP hashes and webhook signatures
 * keep their bytes whatever library computes them.
 */

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('shared/crypto.ts', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    // FIPS 180-2 appendix B.1
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ])('gives the lowercase hex SHA-256 of %p', (input, hex) => {
    expect(sha256Hex(input)).toBe(hex)
  })

  it('gives the base64 of SHA-256 padded, and base64url unpadded (RFC 7636 appendix B)', () => {
    expect(sha256Base64('abc')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=')
    expect(sha256Base64url('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('hashes text as TextEncoder encodes it: UTF-8, a lone surrogate as U+FFFD', () => {
    for (const input of ['é漢🙂', '\ud800', 'a\udc00b'])
      expect(sha256Hex(input)).toBe(
        new Bun.CryptoHasher('sha256').update(new TextEncoder().encode(input)).digest('hex'),
      )
  })

  it('gives HMAC-SHA-256 as RFC 4231 test case 2 does', () => {
    const mac = hmacSha256(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?')
    expect(hexOf(mac)).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })

  it('signs a webhook as the Standard Webhooks example does', () => {
    const signature = sign(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    )
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  it.each([
    ['equal bytes', 'abc', 'abc', true],
    ['one byte changed', 'abc', 'abd', false],
    ['another length', 'abc', 'abcd', false],
    ['both empty', '', '', true],
  ])('compares in constant time: %s', (_, a, b, equal) => {
    expect(constantTimeEqual(Buffer.from(a), Buffer.from(b))).toBe(equal)
  })
})
