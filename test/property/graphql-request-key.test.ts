import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { requestKey } from '../../server/graphql/kept-answers.ts'
import { canonicalJson } from '../../shared/canonical-json.ts'

type Json = null | boolean | number | string | Json[] | { [name: string]: Json }

/** A JSON value as a client's text would give it (JSON has no -0 or undefined). */
const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as Json)

/** The same value with every object's members in another order (`seed` picks it). */
function reordered(value: Json, seed: number): Json {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item, i) => reordered(item, seed + i))
  const entries = Object.entries(value).map(
    ([name, member], i) => [name, reordered(member, seed + i)] as const,
  )
  // Rotated and, on odd seeds, reversed: a different order for any object of two members or more.
  const turned = entries
    .slice(seed % (entries.length || 1))
    .concat(entries.slice(0, seed % (entries.length || 1)))
  // Object.fromEntries defines members, so `__proto__` stays a member as JSON.parse makes it.
  return Object.fromEntries(seed % 2 ? turned.reverse() : turned)
}

const post = (text: string, accept = 'application/graphql-response+json') =>
  new Request('http://127.0.0.1/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: text,
  })

describe('canonicalJson (the variables part of a GraphQL cache key)', () => {
  it('spells a value so that parsing it gives the value back', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(value)
      }),
    )
  })

  it('spells a value the same whatever the order of its members', () => {
    fc.assert(
      fc.property(json, fc.nat(), (value, seed) => {
        expect(canonicalJson(reordered(value, seed))).toBe(canonicalJson(value))
      }),
    )
  })

  it('spells different values differently', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        if (canonicalJson(a) === canonicalJson(b)) expect(a).toEqual(b)
      }),
    )
  })
})

describe('requestKey', () => {
  it('is one key for one request sent with its members in any order or spacing, and differs with the Accept header', () => {
    fc.assert(
      fc.property(fc.string(), json, fc.nat(), (query, variables, seed) => {
        const params = { query, variables, operationName: 'Op' }
        const key = requestKey(post(JSON.stringify(params)), JSON.stringify(params))
        const other = JSON.stringify(reordered(params as Json, seed), null, seed % 3)
        expect(key).toBeString()
        expect(requestKey(post(other), other)).toBe(key)
        expect(requestKey(post(other, 'application/json'), other)).not.toBe(key)
      }),
    )
  })

  it('takes no request whose body is not a JSON object', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          json
            .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
            .map((v) => JSON.stringify(v)),
        ),
        (text) => {
          let parsed: unknown
          try {
            parsed = JSON.parse(text)
          } catch {}
          const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
          expect(requestKey(post(text), text) === undefined).toBe(!isObject)
        },
      ),
    )
  })
})
