import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { parseActionBody } from '../../server/rest/action-body.ts'
import { ApiError } from '../../shared/errors.ts'

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json']
const whitespace = fc.stringMatching(/^[ \t\r\n]{0,8}$/)

function statusOf(contentType: string | null, text: string): number | ApiError {
  try {
    parseActionBody(contentType, text)
    return 200
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return error
  }
}

describe('parseActionBody (the body of POST /{collection}/{id}/{action})', () => {
  it('takes an empty or blank body whatever the Content-Type', () => {
    const type = fc.option(fc.string({ maxLength: 40 }), { nil: null })
    fc.assert(
      fc.property(type, whitespace, (contentType, text) => {
        expect(parseActionBody(contentType, text)).toEqual({})
      }),
    )
  })

  it('takes {} as JSON, however it is spaced', () => {
    fc.assert(
      fc.property(fc.constantFrom(...JSON_TYPES), whitespace, whitespace, whitespace, (type, a, b, c) => {
        expect(parseActionBody(type, `${a}{${b}}${c}`)).toEqual({})
      }),
    )
  })

  it('answers an object with members 422 with a detail per member, in order', () => {
    const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 })
    fc.assert(
      fc.property(fc.constantFrom(...JSON_TYPES), names, fc.jsonValue(), (type, keys, value) => {
        const body = Object.fromEntries(keys.map((k) => [k, value]))
        const error = statusOf(type, JSON.stringify(body))
        expect(error).toBeInstanceOf(ApiError)
        expect((error as ApiError).status).toBe(422)
        expect((error as ApiError).details.map((d) => d.field)).toEqual(Object.keys(body))
      }),
    )
  })

  it('answers any other JSON value 422 naming the body', () => {
    const notAnObject = fc.jsonValue().filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
    fc.assert(
      fc.property(notAnObject, (value) => {
        const error = statusOf('application/json', JSON.stringify(value))
        expect((error as ApiError).status).toBe(422)
        expect((error as ApiError).details.map((d) => d.field)).toEqual(['body'])
      }),
    )
  })

  it('answers any non-blank text with 400, 415 or 422 and never anything else or a crash', () => {
    const type = fc.option(fc.oneof(fc.constantFrom(...JSON_TYPES, 'text/plain'), fc.string()), { nil: null })
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }).filter((t) => t.trim() !== '')
    fc.assert(
      fc.property(type, text, (contentType, body) => {
        const result = statusOf(contentType, body)
        if (result === 200) {
          expect(JSON.parse(body)).toEqual({})
          return
        }
        expect([400, 415, 422]).toContain((result as ApiError).status)
      }),
      { numRuns: 2000 },
    )
  })
})
