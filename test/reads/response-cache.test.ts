import { describe, expect, it } from 'bun:test'
import type { Principal } from '../../server/auth/tokens.ts'
import { representation } from '../../server/http/conditional.ts'
import { ResponseCache } from '../../server/http/response-cache.ts'

const principal = (orgId: string, scopes: string[]): Principal => ({
  kind: 'client',
  subject: 'cli_x',
  orgId,
  clientId: 'cli_x',
  scopes: new Set(scopes),
  expiresAt: 0,
})

describe('ResponseCache', () => {
  const stamps = new Map<string, number>()
  const changes = { own: () => 0, others: () => 0, stamp: (org: string) => stamps.get(org) ?? 0 }

  it('keys by organization, read scopes and the path with its query string as sent', () => {
    const cache = new ResponseCache(changes)
    const url = new URL('http://h/api/v1/orders?limit=5&status=paid')
    const a = cache.keyOf(principal('org_a', ['read:orders', 'write:orders']), url)
    expect(cache.keyOf(principal('org_a', ['write:orders', 'read:orders']), url)).toBe(a)
    expect(cache.keyOf(principal('org_b', ['read:orders']), url)).not.toBe(a)
    expect(cache.keyOf(principal('org_a', ['read:orders', 'read:users']), url)).not.toBe(a)
    expect(
      cache.keyOf(principal('org_a', ['read:orders']), new URL('http://h/api/v1/orders?status=paid&limit=5')),
    ).not.toBe(a)
  })

  it('answers only under the stamp it was kept with', () => {
    const cache = new ResponseCache(changes)
    cache.keep('k', 3, representation({ a: 1 }, '2026-01-01T00:00:00.000Z'))
    expect(cache.get('k', 3)?.text).toBe('{"a":1}')
    expect(cache.get('k', 4)).toBeUndefined()
    expect(cache.has('k')).toBe(false)
  })

  it('holds no more bytes than its bound, dropping the least recently used first', () => {
    const cache = new ResponseCache(changes, 8 * 1024)
    const body = (n: number) => representation({ n, pad: 'x'.repeat(700) }, '2026-01-01T00:00:00.000Z')
    for (let n = 0; n < 8; n++) cache.keep(`k${n}`, 1, body(n))
    expect(cache.get('k0', 1)).toBeDefined()
    for (let n = 8; n < 12; n++) cache.keep(`k${n}`, 1, body(n))
    expect(cache.size()).toBeLessThanOrEqual(8 * 1024)
    // k0 was read since, k1 not: k1 went first.
    expect(cache.has('k0')).toBe(true)
    expect(cache.has('k1')).toBe(false)
    expect(cache.has('k11')).toBe(true)
    // An answer above an eighth of the bound is not kept at all.
    cache.keep('big', 1, representation({ pad: 'x'.repeat(2000) }, '2026-01-01T00:00:00.000Z'))
    expect(cache.has('big')).toBe(false)
  })
})
