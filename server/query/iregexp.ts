import { type FilterFunction, FunctionExpressionType } from 'json-p3'
import { RE2JS } from 're2js'
import { unprocessable } from './media.ts'

/** Longest pattern `match()` and `search()` accept; longer ones make the query 422. */
const MAX_PATTERN_LENGTH = 500

const SINGLE_ESCAPES = new Set([
  '(',
  ')',
  '*',
  '+',
  '-',
  '.',
  '?',
  '[',
  '\\',
  ']',
  '^',
  'n',
  'r',
  't',
  '{',
  '|',
  '}',
])
const CATEGORY = /^(?:L[lmotu]?|M[cen]?|N[dlo]?|P[cdefios]?|Z[lps]?|S[ckmo]?|C[cfno]?)$/
// RE2 syntax characters that are ordinary characters in I-Regexp (RFC 9485 NormalChar).
const RE2_SPECIAL = new Set(['^', '$'])

/**
 * Translates an I-Regexp (RFC 9485) into RE2 syntax, or undefined when the pattern is not an
 * I-Regexp (RFC 9535 §2.4.6: match() and search() are then false). I-Regexp is a subset of what
 * RE2 reads; `.` excludes only \n and \r, and `^` and `$` are ordinary characters.
 */
export function iRegexpToRe2(pattern: string): string | undefined {
  const chars = Array.from(pattern)
  let i = 0
  let out = ''
  let depth = 0
  // Whether the last thing written is an atom a quantifier may follow (not one already quantified).
  let quantifiable = false
  const readEscape = (): string | undefined => {
    const next = chars[i + 1]
    if (next === 'p' || next === 'P') {
      const close = chars.indexOf('}', i + 2)
      const name = chars.slice(i + 3, close).join('')
      if (chars[i + 2] !== '{' || close < 0 || !CATEGORY.test(name)) return undefined
      i = close + 1
      return `\\${next}{${name}}`
    }
    if (next === undefined || !SINGLE_ESCAPES.has(next)) return undefined
    i += 2
    return `\\${next}`
  }
  const charClass = (): string | undefined => {
    let cls = '['
    i += 1
    if (chars[i] === '^') {
      cls += '^'
      i += 1
    }
    const start = cls.length
    while (i < chars.length && chars[i] !== ']') {
      const c = chars[i]!
      if (c === '[') return undefined
      if (c === '\\') {
        const escaped = readEscape()
        if (escaped === undefined) return undefined
        cls += escaped
      } else {
        cls += c === '^' ? '\\^' : c
        i += 1
      }
    }
    if (chars[i] !== ']' || cls.length === start) return undefined
    i += 1
    return `${cls}]`
  }
  while (i < chars.length) {
    const c = chars[i]!
    let atom: string | undefined
    if (c === '\\') atom = readEscape()
    else if (c === '[') atom = charClass()
    else if (c === '.') {
      atom = '[^\\n\\r]'
      i += 1
    } else if (c === '(' || c === '|') {
      if (c === '(') depth += 1
      out += c
      i += 1
      quantifiable = false
      continue
    } else if (c === ')') {
      if (depth === 0) return undefined
      depth -= 1
      atom = ')'
      i += 1
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (!quantifiable) return undefined
      if (c === '{') {
        const close = chars.indexOf('}', i)
        const bounds = close < 0 ? '' : chars.slice(i + 1, close).join('')
        const range = /^(\d+)(,(\d*))?$/.exec(bounds)
        if (!range || (range[3] && Number(range[3]) < Number(range[1]))) return undefined
        out += `{${bounds}}`
        i = close + 1
      } else {
        out += c
        i += 1
      }
      quantifiable = false
      continue
    } else if (c === ']' || c === '}') return undefined
    else {
      atom = RE2_SPECIAL.has(c) ? `\\${c}` : c
      i += 1
    }
    if (atom === undefined) return undefined
    out += atom
    quantifiable = true
  }
  return depth === 0 ? out : undefined
}

const cache = new Map<string, RE2JS | null>()

/** The compiled pattern, null when it is not an I-Regexp; 422 past the size limits. */
function compile(pattern: string): RE2JS | null {
  const known = cache.get(pattern)
  if (known !== undefined) return known
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw unprocessable(
      `A match() or search() pattern is longer than ${MAX_PATTERN_LENGTH} characters.`,
      `a regular expression is longer than ${MAX_PATTERN_LENGTH} characters`,
    )
  }
  const translated = iRegexpToRe2(pattern)
  let compiled: RE2JS | null = null
  if (translated !== undefined) {
    try {
      compiled = RE2JS.compile(translated)
    } catch (error) {
      // RE2 refuses repetition counts above 1000, which I-Regexp allows.
      throw unprocessable(
        'A match() or search() pattern is too large.',
        'a regular expression repeats more than 1000 times',
        { cause: error },
      )
    }
  }
  if (cache.size >= 256) cache.clear()
  cache.set(pattern, compiled)
  return compiled
}

/**
 * RFC 9535 §2.4.6 and §2.4.7, run by RE2 (linear time, no backtracking) instead of the platform's
 * backtracking engine: no pattern can stall the server, whatever text it is matched against.
 */
class LinearRegexFunction implements FilterFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType]
  readonly returnType = FunctionExpressionType.LogicalType

  constructor(private readonly whole: boolean) {}

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false
    const re = compile(pattern)
    if (!re) return false
    return this.whole ? re.matches(value) : re.matcher(value).find()
  }
}

export const linearMatch = new LinearRegexFunction(true)
export const linearSearch = new LinearRegexFunction(false)
