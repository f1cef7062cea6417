import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { checkJsonText } from '../../server/http/json-text.ts'
import { MAX_JSON_DEPTH } from '../../server/http/limits.ts'
import { ApiError } from '../../shared/errors.ts'

type Json = null | boolean | number | string | Json[] | { [name: string]: Json }

/** What checkJsonText throws for `text`, or undefined. */
function refusal(text: string): ApiError | undefined {
  try {
    checkJsonText(text)
    return undefined
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
}

/** The path of a member as the details name it: `a.b`, `items[0].sku`, `["a b"].c`. */
function pathOf(segments: (string | number)[]): string {
  let path = ''
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) path += path === '' ? segment : `.${segment}`
    else path += `[${JSON.stringify(segment)}]`
  }
  return path.length > 200 ? `${path.slice(0, 200)}…` : path
}

/** Every code unit as `\uXXXX`: the same name, spelled otherwise. */
const escaped = (name: string) =>
  `"${[...Array(name.length).keys()].map((i) => `\\u${name.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`

interface Insertion {
  /** Which object (in the order they are written) gets the repeated member. */
  object: number
  /** Which of its members is repeated, and where the copy goes among them. */
  member: number
  at: number
  spelling: 'same' | 'escaped'
  gap: string
}

/**
 * `value` written as JSON, with one member of one object written twice (the second time with
 * `null`), and the path of that member; no path when the value has no object with a member.
 */
function withDuplicate(value: Json, insertion: Insertion): { text: string; path?: string } {
  const objects: number[] = []
  let counted = 0
  const count = (v: Json): void => {
    if (Array.isArray(v)) v.forEach(count)
    else if (v !== null && typeof v === 'object') {
      if (Object.keys(v).length > 0) objects.push(counted)
      counted++
      Object.values(v).forEach(count)
    }
  }
  count(value)
  if (objects.length === 0) return { text: JSON.stringify(value) }
  const target = objects[insertion.object % objects.length]!
  const { gap } = insertion
  let seen = 0
  let path: string | undefined
  const write = (v: Json, segments: (string | number)[]): string => {
    if (Array.isArray(v))
      return `[${gap}${v.map((item, i) => write(item, [...segments, i])).join(`,${gap}`)}]`
    if (v === null || typeof v !== 'object') return JSON.stringify(v)
    const index = seen++
    const members = Object.entries(v).map(
      ([name, item]) => `${JSON.stringify(name)}${gap}:${gap}${write(item, [...segments, name])}`,
    )
    if (index === target) {
      const names = Object.keys(v)
      const name = names[insertion.member % names.length]!
      path = pathOf([...segments, name])
      const spelled = insertion.spelling === 'same' ? JSON.stringify(name) : escaped(name)
      members.splice(insertion.at % (members.length + 1), 0, `${spelled}${gap}:${gap}null`)
    }
    return `{${gap}${members.join(`,${gap}`)}${gap}}`
  }
  return { text: write(value, []), path }
}

const values = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 6, stringUnit: 'binary' }),
) as fc.Arbitrary<Json>
const insertion: fc.Arbitrary<Insertion> = fc.record({
  object: fc.nat(),
  member: fc.nat(),
  at: fc.nat(),
  spelling: fc.constantFrom('same', 'escaped'),
  gap: fc.constantFrom('', ' ', '\n  ', '\t'),
})

describe('checkJsonText (REST, QUERY and GraphQL bodies, WebSocket messages)', () => {
  it('accepts every JSON value without a repeated name, compact or indented', () => {
    fc.assert(
      fc.property(values, fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        expect(refusal(JSON.stringify(value, null, indent))).toBeUndefined()
      }),
      { numRuns: 2000 },
    )
  })

  it('refuses a member written twice, at any depth and in any spelling, naming its path', () => {
    fc.assert(
      fc.property(values, insertion, (value, where) => {
        const { text, path } = withDuplicate(value, where)
        const error = refusal(text)
        if (path === undefined) return expect(error).toBeUndefined()
        // The text is JSON all the same: JSON.parse would keep the last and say nothing.
        expect(() => JSON.parse(text)).not.toThrow()
        expect(error?.code).toBe('BAD_REQUEST')
        expect(error?.details).toEqual([{ field: path, message: 'appears more than once in its object' }])
      }),
      { numRuns: 2000 },
    )
  })

  const refused: [string, string, string][] = [
    ['a name and its escaped spelling', 'ab', '{"a\\u0062": 1, "ab": 2}'],
    ['two escaped spellings', '["é"]', '{"\\u00e9": 1, "\\u00E9": 2}'],
    ['an escaped quote', '["a\\"b"]', '{"a\\"b": 1, "a\\u0022b": 2}'],
    ['a surrogate pair and its character', '["😀"]', '{"\\ud83d\\ude00": 1, "😀": 2}'],
    [
      'inside an array, in the second element',
      'items[1].sku',
      '{"items": [{"sku": 1}, {"sku": 2, "sku": 3}]}',
    ],
    ['in a top-level array', '[0].a', '[{"a": 1, "a": 2}]'],
    ['under a name that is not an identifier', '["a b"].c', '{"a b": {"c": 1, "c": 2}}'],
    ['after a nested object', 'amount', '{"amount": {"amount": 1}, "x": [], "amount": 2}'],
    ['the empty name', '[""]', '{"": 1, "": 2}'],
  ]
  it.each(refused)('refuses %s, naming %s', (_, field, text) => {
    expect(refusal(text)?.details[0]?.field).toBe(field)
  })

  const accepted: [string, string][] = [
    ['one name in sibling objects', '[{"a": 1}, {"a": 2}]'],
    ['one name at two depths', '{"a": {"a": {"a": 1}}}'],
    ['names that differ only in case', '{"a": 1, "A": 2}'],
    ['a repeated-looking text inside a string', '{"q": "{\\"a\\": 1, \\"a\\": 2}", "a": 1}'],
    ['a string value equal to a name', '{"a": "a", "b": "a"}'],
  ]
  it.each(accepted)('accepts %s', (_, text) => {
    expect(refusal(text)).toBeUndefined()
  })

  it('tells names apart in objects with many of them too', () => {
    const names = Array.from({ length: 100 }, (_, i) => `"n${i}": ${i}`)
    expect(refusal(`{${names.join(', ')}}`)).toBeUndefined()
    expect(refusal(`{${names.join(', ')}, "n\\u0037": 0}`)?.details[0]?.field).toBe('n7')
    expect(refusal(`[{${names.join(', ')}}, {${names.slice(0, 50).join(', ')}, "n99": 1}]`)).toBeUndefined()
  })

  it(`still refuses nesting deeper than ${MAX_JSON_DEPTH} levels, naming body`, () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`
    expect(refusal(deep)?.details[0]?.field).toBe('body')
    expect(
      refusal(`{"a": ${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`),
    ).toBeUndefined()
  })
})
