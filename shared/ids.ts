/**
 * TypeID-shaped identifiers: `<prefix>_<26 chars>`, the 128 bits of a UUIDv7 in lowercase
 * Crockford base32 (https://github.com/jetify-com/typeid/tree/main/spec). Time-ordered, never
 * sequential integers.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const SUFFIX = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/

let last: { ms: number; bytes: Uint8Array } | null = null

/**
 * The 16 bytes of a fresh UUIDv7 (RFC 9562 §5.7). Within one millisecond (or if the clock steps
 * back) the previous value is incremented (RFC 9562 §6.2, method 2), so ids made by one process
 * sort in creation order: records created in the same millisecond keep their order in lists.
 */
function uuidv7Bytes(now = Date.now()): Uint8Array {
  if (last && now <= last.ms) {
    const bytes = last.bytes.slice()
    for (let i = 15; i >= 9; i--) {
      bytes[i] = (bytes[i]! + 1) & 0xff
      if (bytes[i] !== 0) break
    }
    last = { ms: last.ms, bytes }
    return bytes.slice()
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  // Leave room to count up within the millisecond.
  bytes[9] = bytes[9]! & 0x7f
  stampV7(bytes, now)
  last = { ms: now, bytes }
  return bytes.slice()
}

/** Writes the millisecond timestamp, version 7 and the RFC 9562 variant into 16 random bytes. */
function stampV7(bytes: Uint8Array, now: number): Uint8Array {
  let ms = now
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256
    ms = Math.floor(ms / 256)
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f)
  bytes[8] = 0x80 | (bytes[8]! & 0x3f)
  return bytes
}

function encodeBase32(bytes: Uint8Array): string {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  let out = ''
  // 130 bits in 26 groups of 5; the two leading bits are zero, so the first char is 0-7.
  for (let i = 25; i >= 0; i--) out += ALPHABET[Number((value >> BigInt(i * 5)) & 31n)]
  return out
}

export function newId(prefix: string, now = Date.now()): string {
  return `${prefix}_${encodeBase32(uuidv7Bytes(now))}`
}

/**
 * A TypeID whose UUIDv7 has all 74 non-time bits random (RFC 9562 §5.7 without the §6.2 counter),
 * for identifiers that must not be guessable from a neighbour made in the same millisecond.
 */
export function randomId(prefix: string, now = Date.now()): string {
  return `${prefix}_${encodeBase32(stampV7(crypto.getRandomValues(new Uint8Array(16)), now))}`
}

export function isId(value: unknown, prefix: string): value is string {
  return (
    typeof value === 'string' &&
    value.length === prefix.length + 27 &&
    value.startsWith(`${prefix}_`) &&
    SUFFIX.test(value.slice(prefix.length + 1))
  )
}
