import { describe, expect, it } from 'bun:test'
import { iRegexpToRe2, linearMatch, linearSearch } from '../../server/query/iregexp.ts'

describe('I-Regexp (RFC 9485) for match() and search()', () => {
  // [pattern, value, match(), search()]
  const cases: [string, string, boolean, boolean][] = [
    ['1974-05-..', '1974-05-01', true, true],
    ['[BR]ob', 'Bob', true, true],
    ['[BR]ob', 'Rob Roy', false, true],
    ['a.c', 'a\nc', false, false],
    ['a.c', 'a\u{1F600}c', true, true],
    ['\\p{Lu}+', 'ÄÖ', true, true],
    ['\\P{Lu}', 'a', true, true],
    ['x{2,3}', 'xxxx', false, true],
    ['^a$', '^a$', true, true],
    ['(ab|cd)+', 'abcdab', true, true],
    ['[^a-c]', 'd', true, true],
    ['[\\-\\]]', ']', true, true],
  ]
  for (const [pattern, value, whole, part] of cases) {
    it(`${pattern} on ${JSON.stringify(value)}: match ${whole}, search ${part}`, () => {
      expect(linearMatch.call(value, pattern)).toBe(whole)
      expect(linearSearch.call(value, pattern)).toBe(part)
    })
  }

  // Valid in JavaScript or RE2, not I-Regexp: the functions are false (RFC 9535 §2.4.6).
  const notIRegexp = [
    '\\d',
    '\\w+',
    '(?:a)',
    'a*?',
    '(?i)a',
    'a{,3}',
    '[a',
    'a)',
    '*a',
    'a**',
    '\\b',
    'a{3,1}',
    '[]',
  ]
  for (const pattern of notIRegexp) {
    it(`${pattern} is not an I-Regexp`, () => {
      expect(iRegexpToRe2(pattern)).toBeUndefined()
      expect(linearSearch.call('a1 b', pattern)).toBe(false)
    })
  }

  it('is false for arguments that are not strings', () => {
    expect(linearMatch.call(5, 'a')).toBe(false)
    expect(linearSearch.call('a', null)).toBe(false)
  })

  it('runs in linear time on patterns that make backtracking engines explode', () => {
    const text = `${'a'.repeat(100_000)}!`
    const started = performance.now()
    for (const pattern of ['(a|aa)*b', '(a+)+b', '(a*)*!', '(.*){10}b'])
      expect(linearSearch.call(text, pattern)).toBe(pattern === '(a*)*!')
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
