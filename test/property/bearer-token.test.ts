import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { bearerToken } from '../../server/auth/tokens.ts'
import { ApiError } from '../../shared/errors.ts'

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
const token68 = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,200}$/), fc.stringMatching(/^=*$/))
  .map(([body, padding]) => body + padding.slice(0, 2))
const space = fc.stringMatching(/^ {1,3}$/)

function expectUnauthorized(header: string | null): void {
  let thrown: unknown
  try {
    bearerToken(header)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  const error = thrown as ApiError
  expect(error.status).toBe(401)
  expect(error.code).toBe('UNAUTHORIZED')
  // RFC 6750 §3.1: a request without a usable bearer token gets the bare challenge.
  expect(error.headers['WWW-Authenticate']).toBe('Bearer realm="api"')
}

describe('bearerToken', () => {
  it('returns the token of "Bearer <b64token>", whatever the case of the scheme and the spacing', () => {
    const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR')
    fc.assert(
      fc.property(scheme, space, token68, space, (s, gap, token, trailing) => {
        expect(bearerToken(`${s}${gap}${token}${trailing}`)).toBe(token)
      }),
      { numRuns: 1000 },
    )
  })

  it('rejects a missing or empty header with 401', () => {
    expectUnauthorized(null)
    expectUnauthorized('')
  })

  it('rejects any header that is not Bearer and one b64token with 401 and the bare challenge', () => {
    const garbage = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 80 }).map((s) => `Bearer ${s}`),
      token68.map((t) => `Basic ${t}`),
      token68.map((t) => `Bearer${t}`),
      fc.tuple(token68, token68).map(([a, b]) => `Bearer ${a} ${b}`),
      fc
        .tuple(token68, fc.constantFrom('"', ',', ';', '\\', 'é', '\t', '=x'))
        .map(([t, c]) => `Bearer ${t}${c}`),
    )
    fc.assert(
      fc.property(garbage, (header) => {
        const match = /^Bearer +(\S+)$/i.exec(header.trim())
        fc.pre(!(match && B64TOKEN.test(match[1]!)))
        expectUnauthorized(header)
      }),
      { numRuns: 2000 },
    )
  })
})
