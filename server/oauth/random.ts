import { encodeBase64urlNoPadding } from '@oslojs/encoding'

/** A fresh secret of 256 random bits with a prefix that tells what it is (`rt_...` for a refresh token). */
export function randomToken(prefix: string): string {
  return `${prefix}_${encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)))}`
}

/** RFC 8628 §6.1: 20 consonants, no vowels (no words), no look-alikes such as 0/O or 1/I. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ'

/** Eight characters from USER_CODE_ALPHABET (20^8, about 34 bits), drawn without modulo bias. */
export function randomUserCode(): string {
  let code = ''
  while (code.length < 8) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      // 240 is the largest multiple of 20 below 256: larger bytes would favour the first letters.
      if (byte < 240 && code.length < 8) code += USER_CODE_ALPHABET[byte % 20]
    }
  }
  return code
}

/** `BCDFGHJK` -> `BCDF-GHJK`, as shown to people. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/** What a person typed -> the stored form: case, dashes and spaces do not matter. Null when it cannot be a code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s\-‐-―]/g, '')
  if (code.length !== 8) return null
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return null
  return code
}
