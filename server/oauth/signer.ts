import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding'
import { constantTimeEqual, hmacSha256 } from '../../shared/crypto.ts'

/**
 * Short-lived values the server hands to the browser and must get back unchanged: the login
 * cookie and the authorization request carried in the pages' hidden fields. HMAC-SHA-256 over
 * `purpose`, expiry and data, so a value made for one purpose is never accepted for another.
 */
export class Signer {
  constructor(
    private readonly key: Uint8Array,
    private readonly clock: () => number,
  ) {}

  sign(purpose: string, data: unknown, ttlSeconds: number): string {
    const exp = Math.floor(this.clock() / 1000) + ttlSeconds
    const body = encodeBase64urlNoPadding(
      new TextEncoder().encode(JSON.stringify({ p: purpose, exp, d: data })),
    )
    return `${body}.${this.mac(body)}`
  }

  /** The data signed for `purpose`, or null when the value is missing, forged, for another purpose or expired. */
  verify(purpose: string, value: string | null | undefined): unknown {
    if (!value) return null
    const dot = value.indexOf('.')
    if (dot < 0) return null
    const body = value.slice(0, dot)
    const given = Buffer.from(value.slice(dot + 1))
    const expected = Buffer.from(this.mac(body))
    if (!constantTimeEqual(given, expected)) return null
    try {
      const parsed: unknown = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(body)))
      if (typeof parsed !== 'object' || parsed === null) return null
      const { p, exp, d } = parsed as Record<string, unknown>
      if (p !== purpose || typeof exp !== 'number' || exp * 1000 <= this.clock()) return null
      return d
    } catch {
      return null
    }
  }

  private mac(body: string): string {
    return encodeBase64urlNoPadding(hmacSha256(this.key, body))
  }
}
