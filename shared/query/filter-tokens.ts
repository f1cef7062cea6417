import { type ApiError, badRequest } from '../errors.ts'

export const KEYWORDS = ['AND', 'OR', 'NOT', 'IN', 'LIKE', 'IS', 'NULL', 'TRUE', 'FALSE'] as const
export type Keyword = (typeof KEYWORDS)[number]

export const SYMBOLS = ['(', ')', ',', '=', '!=', '<>', '<', '<=', '>', '>='] as const
export type Punctuation = (typeof SYMBOLS)[number]

/** One token of a filter expression; `position` is its 0-based offset in the text. */
export type Token =
  | { kind: 'name'; text: string; position: number }
  | { kind: 'keyword'; keyword: Keyword; text: string; position: number }
  | { kind: 'string'; value: string; position: number }
  | { kind: 'number'; value: number; text: string; position: number }
  | { kind: 'symbol'; symbol: Punctuation; position: number }
  | { kind: 'end'; position: number }

/** The one error of filter parsing: a 400 with a single detail on `filter`. */
export function filterError(message: string): ApiError {
  return badRequest(`The filter expression is not valid: ${message}.`, [{ field: 'filter', message }])
}

/** Quotes user text for a message, cut short so that an error never echoes a whole expression. */
export function excerpt(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** How a token reads in a message: `')'`, `'and'`, `"amount"`, `number 12`. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'name':
      return `"${excerpt(token.text)}"`
    case 'keyword':
      return `'${token.text}'`
    case 'string':
      return 'string'
    case 'number':
      return `number ${excerpt(token.text)}`
    case 'symbol':
      return `'${token.symbol}'`
    case 'end':
      return 'end of expression'
  }
}

function describeCharacter(text: string, position: number): string {
  const code = text.codePointAt(position) ?? 0
  if (code > 0x20 && code < 0x7f) return `'${String.fromCharCode(code)}'`
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'
const isNameStart = (c: string | undefined) =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_')
const isNamePart = (c: string | undefined) => isNameStart(c) || isDigit(c)
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r'
const ESCAPES = String.raw`\\ \' \" \% \_`
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS)

function isKeyword(word: string): word is Keyword {
  return KEYWORD_SET.has(word)
}

function readString(text: string, start: number): { token: Token; end: number } {
  const quote = text[start]!
  let value = ''
  let i = start + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === quote) {
      if (text[i + 1] !== quote) return { token: { kind: 'string', value, position: start }, end: i + 1 }
      value += quote
      i += 2
    } else if (c === '\\') {
      const next = text[i + 1]
      if (next === undefined) break
      if (next === '\\' || next === "'" || next === '"') value += next
      // Kept with their backslash (as MySQL does) so that a LIKE pattern can match a literal % or _.
      else if (next === '%' || next === '_') value += `\\${next}`
      else
        throw filterError(`backslash before ${describeCharacter(text, i + 1)} at ${i} (escapes: ${ESCAPES})`)
      i += 2
    } else {
      value += c
      i += 1
    }
  }
  throw filterError(`unterminated string starting at ${start}`)
}

function readNumber(text: string, start: number): { token: Token; end: number } {
  let i = start
  if (text[i] === '-') i += 1
  while (isDigit(text[i])) i += 1
  if (text[i] === '.') {
    if (!isDigit(text[i + 1])) throw filterError(`expected a digit after '.' at ${i + 1}`)
    i += 1
    while (isDigit(text[i])) i += 1
  }
  if (isNamePart(text[i]) || text[i] === '.') throw filterError(`malformed number at ${start}`)
  const source = text.slice(start, i)
  // `|| 0` turns -0 into 0; the digits were checked above, so Number never gives NaN here.
  return { token: { kind: 'number', value: Number(source) || 0, text: source, position: start }, end: i }
}

function readSymbol(text: string, start: number): { token: Token; end: number } | undefined {
  const two = text.slice(start, start + 2)
  if (two === '!=' || two === '<>' || two === '<=' || two === '>=') {
    return { token: { kind: 'symbol', symbol: two, position: start }, end: start + 2 }
  }
  const one = text[start]
  if (one === '(' || one === ')' || one === ',' || one === '=' || one === '<' || one === '>') {
    return { token: { kind: 'symbol', symbol: one, position: start }, end: start + 1 }
  }
  return undefined
}

/** Splits a filter expression into tokens, ending with an `end` token. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (isSpace(c)) {
      i += 1
      continue
    }
    let read: { token: Token; end: number } | undefined
    if (c === "'" || c === '"') read = readString(text, i)
    else if (isDigit(c) || (c === '-' && isDigit(text[i + 1]))) read = readNumber(text, i)
    else if (isNameStart(c)) {
      let end = i + 1
      while (isNamePart(text[end])) end += 1
      const word = text.slice(i, end)
      const upper = word.toUpperCase()
      const token: Token = isKeyword(upper)
        ? { kind: 'keyword', keyword: upper, text: word, position: i }
        : { kind: 'name', text: word, position: i }
      read = { token, end }
    } else read = readSymbol(text, i)
    if (!read) throw filterError(`unexpected character ${describeCharacter(text, i)} at ${i}`)
    tokens.push(read.token)
    i = read.end
  }
  tokens.push({ kind: 'end', position: text.length })
  return tokens
}
