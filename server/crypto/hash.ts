/**
 * SHA-256 and HMAC-SHA-256 through Bun's native hasher. These run on every read (ETags of each
 * response, cursor signatures), where the pure-JavaScript implementations cost more than the
 * SQL itself; @oslojs stays for everything else.
 */
export function sha256Base64url(data: string): string {
  return new Bun.CryptoHasher('sha256').update(data).digest('base64url')
}

export function hmacSha256(key: Uint8Array, data: string): Uint8Array {
  return new Uint8Array(new Bun.CryptoHasher('sha256', key).update(data).digest().buffer)
}
