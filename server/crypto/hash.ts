/**
 * HMAC-SHA-256 through Bun's native hasher. It signs every cursor a list hands out, where the
 * pure-JavaScript implementation cost more than the SQL itself; @oslojs stays for everything else.
 */
export function hmacSha256(key: Uint8Array, data: string): Uint8Array {
  return new Uint8Array(new Bun.CryptoHasher('sha256', key).update(data).digest().buffer)
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (fingerprints of requests, never of secrets' plain text in logs). */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex')
}
