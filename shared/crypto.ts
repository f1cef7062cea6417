import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/*
 * The one home of SHA-256, HMAC-SHA-256 and constant-time comparison, for the server and the CLI
 * (webhook signatures) alike. On node:crypto: native and synchronous in Bun, in the compiled
 * executables and in Node, it encodes digests as hex, base64 and base64url itself, and it already
 * seals secrets and makes random bytes. @oslojs/crypto, which the stack names, is pure JavaScript:
 * 2.5 times as slow for a SHA-256 and 5 times for an HMAC, which signs every cursor a list hands
 * out (there it cost more than the SQL). Bun.CryptoHasher is as fast but Bun's alone. Strings are
 * hashed as UTF-8, a lone surrogate as U+FFFD as TextEncoder does, so stored hashes keep their
 * values.
 */

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex')

/** Unpadded base64url SHA-256 of a string's UTF-8 bytes (RFC 7636 §4.2's BASE64URL(SHA256(...))). */
export const sha256Base64url = (text: string): string => createHash('sha256').update(text).digest('base64url')

/** Padded base64 SHA-256 of a string's UTF-8 bytes, as a CSP hash source takes it. */
export const sha256Base64 = (text: string): string => createHash('sha256').update(text).digest('base64')

/** HMAC-SHA-256 (RFC 2104) of a string's UTF-8 bytes under `key`: 32 bytes. */
export const hmacSha256 = (key: Uint8Array, data: string): Uint8Array =>
  createHmac('sha256', key).update(data).digest()

/** Whether two byte strings are equal, in a time that does not depend on where they differ. */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean =>
  a.byteLength === b.byteLength && timingSafeEqual(a, b)

/** SHA-256 of bytes (a WebAuthn challenge, client data, a relying party id's hash). */
export const sha256Bytes = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest()
