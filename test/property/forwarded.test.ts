import { describe, expect, it } from 'bun:test'
import { isIP } from 'node:net'
import fc from 'fast-check'
import { forwardedFor, forwardedProto } from '../../server/http/forwarded.ts'

/** What a client may put before the proxy's own entry: anything a header value can hold. */
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,80}$/)
const ipv4 = fc.ipV4()
const ipv6 = fc.ipV6()

describe('forwardedFor (X-Forwarded-For under --trust-proxy)', () => {
  it('takes the last entry, the proxy in front appended it, whatever the client wrote before it', () => {
    fc.assert(
      fc.property(headerText, fc.oneof(ipv4, ipv6), (made, address) => {
        expect(forwardedFor(`${made},${address}`)).toBe(address.toLowerCase())
        expect(forwardedFor(`${made}, ${address} `)).toBe(address.toLowerCase())
      }),
      { numRuns: 1000 },
    )
  })

  it('drops a port: 203.0.113.7:51234 and [2001:db8::1]:443', () => {
    fc.assert(
      fc.property(ipv4, ipv6, fc.integer({ min: 0, max: 65535 }), (v4, v6, port) => {
        expect(forwardedFor(`${v4}:${port}`)).toBe(v4)
        expect(forwardedFor(`[${v6}]:${port}`)).toBe(v6.toLowerCase())
        expect(forwardedFor(`[${v6}]`)).toBe(v6.toLowerCase())
      }),
    )
  })

  it('returns an IP address or nothing, for any header value', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 200 }), { nil: null }), (value) => {
        const address = forwardedFor(value)
        if (address !== undefined) expect(isIP(address)).not.toBe(0)
      }),
      { numRuns: 2000 },
    )
  })

  it.each([[null], [''], ['unknown'], ['_hidden'], ['1.2.3.4, unknown'], ['example.com'], ['1.2.3.4.5']])(
    'gives nothing for %p (the peer address is used then)',
    (value) => {
      expect(forwardedFor(value)).toBeUndefined()
    },
  )
})

describe('forwardedProto (X-Forwarded-Proto under --trust-proxy)', () => {
  it('takes http or https from the last entry, in any case', () => {
    const scheme = fc.constantFrom('http', 'https')
    const cased = scheme.chain((s) =>
      fc
        .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
        .map((upper) => [s, [...s].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')] as const),
    )
    fc.assert(
      fc.property(cased, ([s, typed]) => {
        expect(forwardedProto(typed)).toBe(s)
      }),
    )
    fc.assert(
      fc.property(headerText, cased, (made, [s, typed]) =>
        expect(forwardedProto(`${made},${typed}`)).toBe(s),
      ),
    )
  })

  it('gives nothing for anything else', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 100 }), { nil: null }), (value) => {
        const scheme = forwardedProto(value)
        expect(scheme === undefined || scheme === 'http' || scheme === 'https').toBe(true)
      }),
      { numRuns: 2000 },
    )
    expect(forwardedProto('https, ftp')).toBeUndefined()
    expect(forwardedProto('wss')).toBeUndefined()
  })
})
