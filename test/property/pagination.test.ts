import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../shared/errors.ts'
import { PAGINATION_PARAMS, parsePage, rejectUnknownParams } from '../../shared/query/pagination.ts'

/** Values a client might send: valid numbers, numbers out of range, number-like junk and any text. */
const rawValue = fc.oneof(
  fc.integer({ min: -5, max: 105 }).map(String),
  fc.integer().map(String),
  fc.stringMatching(/^[-+]?\d{0,24}(\.\d+)?(e\d+)?$/),
  fc.constantFrom('', ' 1', '1 ', '0x10', '1e2', 'true', 'false', 'NaN', 'Infinity', '-0', '٣', '１'),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
)
const paramName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PAGINATION_PARAMS) },
  fc.string({ maxLength: 10 }),
)
const params = fc
  .array(fc.tuple(paramName, rawValue), { maxLength: 6 })
  .map((pairs) => new URLSearchParams(pairs))

function expectBadRequest(error: unknown, sent: URLSearchParams): void {
  expect(error).toBeInstanceOf(ApiError)
  const apiError = error as ApiError
  expect(apiError.code).toBe('BAD_REQUEST')
  expect(apiError.status).toBe(400)
  expect(apiError.details.length).toBeGreaterThan(0)
  for (const detail of apiError.details) {
    expect(PAGINATION_PARAMS as readonly string[]).toContain(detail.field)
    expect(sent.has(detail.field)).toBe(true)
  }
}

describe('parsePage', () => {
  it('either parses or throws a 400 ApiError naming a parameter the request carried', () => {
    fc.assert(
      fc.property(params, (sent) => {
        try {
          const { page } = parsePage(sent)
          expect(page.limit).toBeGreaterThanOrEqual(1)
          expect(page.limit).toBeLessThanOrEqual(100)
        } catch (error) {
          expectBadRequest(error, sent)
        }
      }),
      { numRuns: 2000 },
    )
  })

  const ranges: [string, number, number, (page: Record<string, unknown>) => unknown][] = [
    ['limit', 1, 100, (p) => p.limit],
    ['per_page', 1, 100, (p) => p.limit],
    ['page', 1, 1_000_000, (p) => p.page],
    ['offset', 0, 100_000_000, (p) => p.offset],
  ]
  it.each(ranges)('accepts %s exactly when it is a whole number from %d to %d', (name, min, max, read) => {
    const number = fc.oneof(
      fc.integer({ min: min - 3, max: min + 3 }),
      fc.integer({ min: max - 3, max: max + 3 }),
      fc.integer({ min: -2 * max, max: 2 * max }),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
    )
    fc.assert(
      fc.property(number, fc.integer({ min: 0, max: 3 }), (n, zeros) => {
        const text = n < 0 ? `-${'0'.repeat(zeros)}${-n}` : `${'0'.repeat(zeros)}${n}`
        const valid = n >= min && n <= max
        try {
          const { page } = parsePage(new URLSearchParams({ [name]: text }))
          expect(valid).toBe(true)
          expect(read(page as unknown as Record<string, unknown>)).toBe(Number(n))
        } catch (error) {
          expect(valid).toBe(false)
          expect((error as ApiError).details).toEqual([{ field: name, message: expect.any(String) }])
        }
      }),
      { numRuns: 500 },
    )
  })

  it.each(['limit', 'per_page', 'page', 'offset'])(
    'rejects %s that is not written as a whole number',
    (name) => {
      const notWhole = rawValue.filter((v) => !/^-?\d+$/.test(v))
      fc.assert(
        fc.property(notWhole, (value) => {
          const sent = new URLSearchParams({ [name]: value })
          expect(() => parsePage(sent)).toThrow(ApiError)
          try {
            parsePage(sent)
          } catch (error) {
            expect((error as ApiError).details[0]!.field).toBe(name)
          }
        }),
      )
    },
  )

  it('answers no parameters with the first cursor page of 20', () => {
    expect(parsePage(new URLSearchParams())).toEqual({
      page: { style: 'cursor', limit: 20, cursor: undefined },
      includeTotal: false,
    })
  })

  it('takes the style of the one style parameter given, and rejects two styles naming the second', () => {
    const style = fc.constantFrom(['page', '2'], ['offset', '10'], ['cursor', 'abc.def'], ['after', 'ord_x'])
    fc.assert(
      fc.property(fc.uniqueArray(style, { minLength: 1, maxLength: 4, selector: (s) => s[0] }), (chosen) => {
        const sent = new URLSearchParams(chosen as [string, string][])
        if (chosen.length === 1) {
          const expected = { page: 'page', offset: 'offset', cursor: 'cursor', after: 'keyset' }[
            chosen[0]![0]!
          ]
          expect(parsePage(sent).page.style).toBe(expected as 'page')
        } else {
          expect(() => parsePage(sent)).toThrow(ApiError)
          try {
            parsePage(sent)
          } catch (error) {
            expectBadRequest(error, sent)
          }
        }
      }),
    )
  })
})

describe('rejectUnknownParams', () => {
  const known = new Set<string>(PAGINATION_PARAMS)
  it('rejects exactly the unknown and the repeated parameters, naming each unknown one', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(paramName, fc.string({ maxLength: 5 })), { maxLength: 8 }), (pairs) => {
        const sent = new URLSearchParams(pairs)
        const names = pairs.map(([name]) => name)
        const unknown = [...new Set(names.filter((n) => !known.has(n)))]
        const repeated = names.filter((n, i) => known.has(n) && names.indexOf(n) !== i)
        try {
          rejectUnknownParams(sent, known)
          expect(unknown).toEqual([])
          expect(repeated).toEqual([])
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError)
          expect((error as ApiError).status).toBe(400)
          const fields = (error as ApiError).details.map((d) => d.field)
          if (unknown.length > 0) expect(fields.sort()).toEqual(unknown.sort())
          else expect(repeated).toContain(fields[0]!)
        }
      }),
      { numRuns: 1000 },
    )
  })
})
