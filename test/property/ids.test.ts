import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { isId, newId } from '../../shared/ids.ts'

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz'
const prefix = fc.stringMatching(/^[a-z]{1,8}$/)

/** TypeID spec: `<prefix>_` and 26 lowercase Crockford base32 characters encoding 128 bits. */
function wellFormed(value: string, p: string): boolean {
  if (!value.startsWith(`${p}_`)) return false
  const suffix = value.slice(p.length + 1)
  return suffix.length === 26 && [...suffix].every((c) => CROCKFORD.includes(c)) && suffix[0]! <= '7'
}

/** The 128 bits a suffix encodes. */
function decode(suffix: string): bigint {
  return [...suffix].reduce((n, c) => (n << 5n) | BigInt(CROCKFORD.indexOf(c)), 0n)
}

// newId keeps state: within a millisecond, or when the clock steps back, it counts up from the last
// id (RFC 9562 §6.2). Early properties use times up to 2^47; the time-field one counts up above that.
const early = fc.integer({ min: 0, max: 2 ** 47 })
let highest = 2 ** 47

describe('newId and isId', () => {
  it('recognize every new id with its own prefix, and never with another', () => {
    fc.assert(
      fc.property(prefix, prefix, early, (p, q, now) => {
        const id = newId(p, now)
        expect(isId(id, p)).toBe(true)
        expect(wellFormed(id, p)).toBe(true)
        if (q !== p) expect(isId(id, q)).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })

  it('sort in the order they were made, whatever the clock says', () => {
    fc.assert(
      fc.property(fc.array(early, { minLength: 2, maxLength: 20 }), (times) => {
        const ids = times.map((t) => newId('ord', t))
        for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('encode a UUIDv7: a later time in the first 48 bits, version 7, variant 10', () => {
    fc.assert(
      fc.property(prefix, fc.integer({ min: 1, max: 2 ** 20 }), (p, step) => {
        highest += step
        const bits = decode(newId(p, highest).slice(p.length + 1))
        expect(bits >> 80n).toBe(BigInt(highest))
        expect((bits >> 76n) & 0xfn).toBe(7n)
        expect((bits >> 62n) & 0x3n).toBe(2n)
      }),
      { numRuns: 1000 },
    )
  })

  it('accept a one-character change of an id only when the result is still well formed', () => {
    fc.assert(
      fc.property(
        prefix,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
        (p, at, char) => {
          const id = newId(p)
          const i = at % id.length
          const changed = id.slice(0, i) + char + id.slice(i + 1)
          expect(isId(changed, p)).toBe(wellFormed(changed, p))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('reject random text unless it is well formed', () => {
    const near = fc.stringMatching(/^ord_[0-9a-zA-Z]{24,28}$/)
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), near), (text) => {
        expect(isId(text, 'ord')).toBe(wellFormed(text, 'ord'))
      }),
      { numRuns: 2000 },
    )
  })

  it('reject values that are not strings', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (value) => expect(isId(value, 'ord')).toBe(false),
      ),
    )
  })
})
