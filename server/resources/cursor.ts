import { constantTimeEqual, hmacSha256 } from '../../shared/crypto.ts'
import { badRequest } from '../../shared/errors.ts'
import type { SortValue } from '../store/types.ts'

const MAC_BYTES = 16
const INVALID = 'is not valid here: it was changed, or made for another collection, sort or filter'

/**
 * Opaque, tamper-evident cursors. The payload holds only the sort values of the last row; the MAC
 * also covers a `binding` (organization, collection, sort and filters), so a cursor replayed with
 * another query, or in another organization, is rejected instead of silently misbehaving.
 */
export class CursorCodec {
  constructor(private readonly key: Uint8Array) {}

  private mac(binding: string, payload: string): Uint8Array {
    return hmacSha256(this.key, `${binding}\n${payload}`).slice(0, MAC_BYTES)
  }

  encode(binding: string, values: SortValue[]): string {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url')
    return `${payload}.${Buffer.from(this.mac(binding, payload)).toString('base64url')}`
  }

  /** The sort values a cursor carries; 400 naming `cursor` when it is not one of ours for this query. */
  decode(binding: string, cursor: string, length: number): SortValue[] {
    const [payload, tag, extra] = cursor.split('.')
    // The tag is unpadded base64url as encoded; padding would give a second spelling of the same cursor.
    if (!payload || !tag || extra !== undefined || cursor.length > 2048 || tag.includes('='))
      throw this.invalid()
    // Native base64url, then only the spelling encode() gives: any other (stray characters,
    // padding, trailing bits) would be a second spelling of the same cursor.
    const given = Buffer.from(tag, 'base64url')
    if (given.length !== MAC_BYTES || given.toString('base64url') !== tag) throw this.invalid()
    if (!constantTimeEqual(given, this.mac(binding, payload))) throw this.invalid()
    // The MAC covers the payload as written, so it is the text encode() made.
    const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const ok =
      Array.isArray(values) &&
      values.length === length &&
      values.every((v) => v === null || typeof v === 'string' || typeof v === 'number')
    if (!ok) throw this.invalid()
    return values as SortValue[]
  }

  private invalid() {
    return badRequest('The cursor is not valid.', [{ field: 'cursor', message: INVALID }])
  }
}
