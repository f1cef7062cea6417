import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { addressClass } from '../../server/webhooks/addresses.ts'
import { checkUrl } from '../../server/webhooks/hooks.ts'
import { resolveTarget, TargetRefused } from '../../server/webhooks/target.ts'
import { ApiError } from '../../shared/errors.ts'

const byte = fc.integer({ min: 0, max: 255 })
const v4 = (a: fc.Arbitrary<number>, b: fc.Arbitrary<number> = byte) =>
  fc.tuple(a, b, byte, byte).map(([w, x, y, z]) => [w, x, y, z] as const)
const dotted = (q: readonly number[]) => q.join('.')
const hex = (q: readonly number[]) =>
  `${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`

/** The inside ranges the issue names, as generators of IPv4 addresses. */
const INSIDE_V4 = fc.oneof(
  v4(fc.constant(127)),
  v4(fc.constant(10)),
  v4(fc.constant(172), fc.integer({ min: 16, max: 31 })),
  v4(fc.constant(192), fc.constant(168)),
  v4(fc.constant(169), fc.constant(254)),
  v4(fc.constant(0)),
)
/** Addresses outside every refused range (public unicast). */
const PUBLIC_V4 = v4(fc.integer({ min: 1, max: 223 })).filter(
  ([a, b, c]) =>
    ![0, 10, 127].includes(a) &&
    !(a === 172 && b >= 16 && b <= 31) &&
    !(a === 192 && (b === 168 || (b === 0 && (c === 0 || c === 2)))) &&
    !(a === 169 && b === 254) &&
    !(a === 100 && b >= 64 && b <= 127) &&
    !(a === 198 && (b === 18 || b === 19 || (b === 51 && c === 100))) &&
    !(a === 203 && b === 0 && c === 113),
)

/** The other ways a URL may spell an IPv4 address: one decimal, hex or octal number, or parts of them. */
const spellings = (q: readonly number[]) => {
  const n = ((q[0]! << 24) >>> 0) + (q[1]! << 16) + (q[2]! << 8) + q[3]!
  return [
    String(n),
    `0x${n.toString(16)}`,
    q.map((p) => `0${p.toString(8)}`).join('.'),
    q.map((p) => `0x${p.toString(16)}`).join('.'),
    `${q[0]}.${(q[1]! << 16) + (q[2]! << 8) + q[3]!}`,
  ]
}

describe('the address classifier', () => {
  test("the issue's ranges, first and last address of each, and their neighbours outside", () => {
    const table: [string, string][] = [
      ['127.0.0.0', 'loopback'],
      ['127.255.255.255', 'loopback'],
      ['126.255.255.255', 'public'],
      ['128.0.0.0', 'public'],
      ['10.0.0.0', 'private'],
      ['10.255.255.255', 'private'],
      ['9.255.255.255', 'public'],
      ['11.0.0.0', 'public'],
      ['172.16.0.0', 'private'],
      ['172.31.255.255', 'private'],
      ['172.15.255.255', 'public'],
      ['172.32.0.0', 'public'],
      ['192.168.0.0', 'private'],
      ['192.168.255.255', 'private'],
      ['192.167.255.255', 'public'],
      ['192.169.0.0', 'public'],
      ['169.254.0.0', 'link-local'],
      ['169.254.169.254', 'link-local'],
      ['169.254.255.255', 'link-local'],
      ['169.253.255.255', 'public'],
      ['169.255.0.0', 'public'],
      ['::1', 'loopback'],
      ['fc00::', 'unique-local'],
      ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
      ['fd00:ec2::254', 'unique-local'],
      ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
      ['fe80::', 'link-local'],
      ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
      ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
    ]
    expect(table.map(([address]) => [address, addressClass(address)])).toEqual(table)
  })

  test('IPv4 inside ranges are never public, plain or mapped into IPv6', () => {
    fc.assert(
      fc.property(INSIDE_V4, (q) => {
        const kind = addressClass(dotted(q))
        expect(kind).not.toBe('public')
        expect(addressClass(`::ffff:${dotted(q)}`)).toBe(kind)
        expect(addressClass(`::ffff:${hex(q)}`)).toBe(kind)
        expect(addressClass(`64:ff9b::${hex(q)}`)).toBe(kind)
      }),
    )
  })

  test('public IPv4 is public, mapped or not', () => {
    fc.assert(
      fc.property(PUBLIC_V4, (q) => {
        expect(addressClass(dotted(q))).toBe('public')
        expect(addressClass(`::ffff:${dotted(q)}`)).toBe('public')
      }),
    )
  })

  test('IPv6 loopback, unique-local, link-local and multicast are refused; global unicast is public', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16))
    const rest = fc.array(group, { minLength: 7, maxLength: 7 })
    fc.assert(
      fc.property(rest, fc.integer({ min: 0, max: 0x1ff }), (groups, low) => {
        expect(addressClass(`${(0xfc00 | low).toString(16)}:${groups.join(':')}`)).toBe('unique-local')
        expect(addressClass(`${(0xfe80 | (low & 0x3f)).toString(16)}:${groups.join(':')}`)).toBe('link-local')
        expect(addressClass(`ff${(low & 0xff).toString(16).padStart(2, '0')}:${groups.join(':')}`)).toBe(
          'multicast',
        )
        // 2000::/3 without the documentation prefix and 6to4.
        const first = (0x2400 | (low & 0x3ff)).toString(16)
        expect(addressClass(`${first}:${groups.join(':')}`)).toBe('public')
      }),
    )
    for (const text of ['::1', '0:0:0:0:0:0:0:1', '::', 'fd00:ec2::254', 'fe80::1%eth0'])
      expect(addressClass(text)).not.toBe('public')
  })

  test('every spelling of an inside IPv4 address in a URL is refused', async () => {
    await fc.assert(
      fc.asyncProperty(INSIDE_V4, async (q) => {
        for (const host of spellings(q)) {
          expect(new URL(`https://${host}/`).hostname).toBe(dotted(q))
          const refused = await resolveTarget(`https://${host}/hook`, false).catch((e) => e)
          expect(refused).toBeInstanceOf(TargetRefused)
        }
        const mapped = await resolveTarget(`https://[::ffff:${dotted(q)}]/hook`, false).catch((e) => e)
        expect(mapped).toBeInstanceOf(TargetRefused)
      }),
      { numRuns: 50 },
    )
  })

  test('a name is checked by every address it resolves to, and the checked one is kept', async () => {
    await fc.assert(
      fc.asyncProperty(PUBLIC_V4, INSIDE_V4, async (good, bad) => {
        const both = async () => [dotted(good), dotted(bad)]
        expect(await resolveTarget('https://hooks.example/x', false, both).catch((e) => e)).toBeInstanceOf(
          TargetRefused,
        )
        const target = await resolveTarget('https://hooks.example/x', false, async () => [dotted(good)])
        expect(target.address).toBe(dotted(good))
      }),
      { numRuns: 50 },
    )
  })

  test('a loopback URL refused without allowHttp names serve --allow-http-webhooks in its 422', async () => {
    for (const url of ['http://127.0.0.1:3000/x', 'https://127.0.0.1:3000/x', 'http://[::1]/x']) {
      const refused = await checkUrl(url, { allowHttp: false }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(ApiError)
      expect((refused as ApiError).status).toBe(422)
      expect((refused as ApiError).details).toEqual([
        { field: 'url', message: expect.stringContaining('serve --allow-http-webhooks') },
      ])
    }
  })

  test('loopback passes only with allowHttp, and http goes nowhere else', async () => {
    expect(await resolveTarget('http://127.0.0.1:3000/x', false).catch((e) => e)).toBeInstanceOf(
      TargetRefused,
    )
    expect((await resolveTarget('http://127.0.0.1:3000/x', true)).address).toBe('127.0.0.1')
    expect((await resolveTarget('http://[::1]:3000/x', true)).address).toBe('::1')
    expect(await resolveTarget('http://10.0.0.1/x', true).catch((e) => e)).toBeInstanceOf(TargetRefused)
    expect(
      await resolveTarget('http://hooks.example/x', true, async () => ['8.8.8.8']).catch((e) => e),
    ).toBeInstanceOf(TargetRefused)
  })
})
