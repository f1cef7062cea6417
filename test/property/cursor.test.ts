import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { CursorCodec } from '../../server/resources/cursor.ts'
import type { SortValue } from '../../server/store/types.ts'
import { ApiError } from '../../shared/errors.ts'

const codec = new CursorCodec(crypto.getRandomValues(new Uint8Array(32)))

/** The sort values of a last row: timestamps, ids, names, amounts, nulls. */
const sqlValue: fc.Arbitrary<SortValue> = fc.oneof(
  fc.constant(null),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
)
const values = fc.array(sqlValue, { minLength: 1, maxLength: 4 })
const binding = fc.string({ minLength: 1, maxLength: 60 })
const cursorCase = fc
  .record({ binding, values })
  .map((c) => ({ ...c, cursor: codec.encode(c.binding, c.values) }))

function expectRejected(decode: () => unknown): void {
  let thrown: unknown
  try {
    decode()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  const error = thrown as ApiError
  expect(error.status).toBe(400)
  expect(error.code).toBe('BAD_REQUEST')
  expect(error.details.map((d) => d.field)).toEqual(['cursor'])
}

describe('CursorCodec', () => {
  it('decodes what it encoded, for the same binding', () => {
    fc.assert(
      fc.property(cursorCase, ({ binding, values, cursor }) => {
        expect(codec.decode(binding, cursor, values.length)).toEqual(values)
      }),
      { numRuns: 1000 },
    )
  })

  it('encodes to URL-safe text', () => {
    fc.assert(
      fc.property(cursorCase, ({ cursor }) => expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)),
    )
  })

  it('rejects a cursor with any one bit of any character flipped', () => {
    fc.assert(
      fc.property(
        cursorCase,
        fc.nat(),
        fc.integer({ min: 0, max: 15 }),
        ({ binding, values, cursor }, at, bit) => {
          const i = at % cursor.length
          const flipped = String.fromCharCode(cursor.charCodeAt(i) ^ (1 << bit))
          expectRejected(() =>
            codec.decode(binding, cursor.slice(0, i) + flipped + cursor.slice(i + 1), values.length),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('rejects a cursor with any character replaced by another URL-safe one', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.='
    fc.assert(
      fc.property(
        cursorCase,
        fc.nat(),
        fc.constantFrom(...alphabet),
        ({ binding, values, cursor }, at, char) => {
          const i = at % cursor.length
          fc.pre(cursor[i] !== char)
          expectRejected(() =>
            codec.decode(binding, cursor.slice(0, i) + char + cursor.slice(i + 1), values.length),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })

  // Padding included: `=` would otherwise be a second spelling of the same cursor.
  const extension = fc.oneof(fc.constantFrom('=', '==', '.', '.x'), fc.string({ minLength: 1, maxLength: 8 }))
  it('rejects every truncation and every extension of a cursor', () => {
    fc.assert(
      fc.property(cursorCase, fc.nat(), extension, ({ binding, values, cursor }, cut, tail) => {
        expectRejected(() => codec.decode(binding, cursor.slice(0, cut % cursor.length), values.length))
        expectRejected(() => codec.decode(binding, cursor.slice((cut % cursor.length) + 1), values.length))
        expectRejected(() => codec.decode(binding, cursor + tail, values.length))
      }),
      { numRuns: 1000 },
    )
  })

  it('rejects a cursor made for another binding (query, collection or organization)', () => {
    fc.assert(
      fc.property(cursorCase, binding, ({ binding: made, values, cursor }, other) => {
        fc.pre(other !== made)
        expectRejected(() => codec.decode(other, cursor, values.length))
      }),
      { numRuns: 1000 },
    )
  })

  it('rejects a cursor made with another key', () => {
    const other = new CursorCodec(crypto.getRandomValues(new Uint8Array(32)))
    fc.assert(
      fc.property(cursorCase, ({ binding, values, cursor }) => {
        expectRejected(() => other.decode(binding, cursor, values.length))
      }),
    )
  })

  it('rejects a genuine cursor when the sort has another number of keys', () => {
    fc.assert(
      fc.property(cursorCase, fc.integer({ min: 0, max: 6 }), ({ binding, values, cursor }, length) => {
        fc.pre(length !== values.length)
        expectRejected(() => codec.decode(binding, cursor, length))
      }),
    )
  })

  it('rejects arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), binding, (text, b) => {
        expectRejected(() => codec.decode(b, text, 2))
      }),
      { numRuns: 1000 },
    )
  })
})
